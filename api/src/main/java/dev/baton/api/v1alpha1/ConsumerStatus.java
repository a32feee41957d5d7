package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/** The queues of one command or subscription and what is in them. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ConsumerStatus {

  @JsonPropertyDescription("Command or subscription name.")
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("The queue the workers consume.")
  @Size(max = Bounds.BROKER_NAME)
  private String queue;

  @JsonPropertyDescription("Routing key of the command, or binding pattern of the subscription (a subscription to a "
      + "Workflow's outcomes: one per outcome, comma-separated).")
  // A subscription to outcomes binds up to three keys (all four outcomes are one pattern).
  @Size(max = 3 * Bounds.BROKER_NAME + 2)
  private String routingKey;

  @JsonPropertyDescription("Retry tier queues, in staircase order.")
  @Size(max = Bounds.DELAYS)
  private List<@Size(max = Bounds.BROKER_NAME) String> retryQueues = new ArrayList<>();

  @JsonPropertyDescription("The dead-letter queue (parking lot).")
  @Size(max = Bounds.BROKER_NAME)
  private String deadLetterQueue;

  @JsonPropertyDescription("Messages in the queue, ready and unacknowledged.")
  private Long messages;

  @JsonPropertyDescription("Consumers on the queue.")
  private Integer consumers;

  @JsonPropertyDescription("Messages waiting in the retry tiers.")
  private Long retrying;

  @JsonPropertyDescription("Messages in the dead-letter queue.")
  private Long deadLetters;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getQueue() {
    return queue;
  }

  public void setQueue(String queue) {
    this.queue = queue;
  }

  public String getRoutingKey() {
    return routingKey;
  }

  public void setRoutingKey(String routingKey) {
    this.routingKey = routingKey;
  }

  public List<String> getRetryQueues() {
    return retryQueues;
  }

  public void setRetryQueues(List<String> retryQueues) {
    this.retryQueues = retryQueues;
  }

  public String getDeadLetterQueue() {
    return deadLetterQueue;
  }

  public void setDeadLetterQueue(String deadLetterQueue) {
    this.deadLetterQueue = deadLetterQueue;
  }

  public Long getMessages() {
    return messages;
  }

  public void setMessages(Long messages) {
    this.messages = messages;
  }

  public Integer getConsumers() {
    return consumers;
  }

  public void setConsumers(Integer consumers) {
    this.consumers = consumers;
  }

  public Long getRetrying() {
    return retrying;
  }

  public void setRetrying(Long retrying) {
    this.retrying = retrying;
  }

  public Long getDeadLetters() {
    return deadLetters;
  }

  public void setDeadLetters(Long deadLetters) {
    this.deadLetters = deadLetters;
  }
}
