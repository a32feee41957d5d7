package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("What the operator has set up for the service (written by the operator only): the broker objects and user it owns, the credentials Secret, the Deployment, queue depths and dead letters, and the conditions.")
public class WorkerServiceStatus extends BatonStatus {

  @JsonPropertyDescription("The service name in use in broker names.")
  @Size(max = Bounds.NAME)
  private String service;

  @JsonPropertyDescription("Number of commands.")
  private Integer commandCount;

  @JsonPropertyDescription("The broker user the workers connect as.")
  @Size(max = Bounds.BROKER_NAME)
  private String username;

  @JsonPropertyDescription("Secret holding the broker credentials: keys username, password and uri.")
  @Size(max = Bounds.OBJECT_NAME)
  private String credentialsSecret;

  @JsonPropertyDescription("The workers' Deployment, when one is managed.")
  @Size(max = Bounds.OBJECT_NAME)
  private String deployment;

  @JsonPropertyDescription("Every exchange the service owns.")
  @Size(max = Bounds.STATUS_NAMES)
  private List<@Size(max = Bounds.BROKER_NAME) String> exchanges = new ArrayList<>();

  @JsonPropertyDescription("Every queue the service owns: command, subscription, retry and dead-letter queues.")
  @Size(max = Bounds.STATUS_NAMES)
  private List<@Size(max = Bounds.BROKER_NAME) String> queues = new ArrayList<>();

  @JsonPropertyDescription("Per command: its queue, retry tiers, dead-letter queue, depth and consumers.")
  @Size(max = Bounds.CONSUMERS)
  private List<ConsumerStatus> commands = new ArrayList<>();

  @JsonPropertyDescription("Per subscription: its queue, retry tiers, dead-letter queue, depth and consumers.")
  @Size(max = Bounds.CONSUMERS)
  private List<ConsumerStatus> subscriptions = new ArrayList<>();

  @JsonPropertyDescription("Messages waiting in the command and subscription queues.")
  private Long messages;

  @JsonPropertyDescription("Messages parked in the dead-letter queues: each one needs a person (see 'baton dlq').")
  private Long deadLetters;

  @JsonPropertyDescription("Messages waiting in the retry tiers for their next attempt.")
  private Long retrying;

  @JsonPropertyDescription("Queues the spec no longer asks for that still hold messages; each is deleted once it is empty "
      + "(old retry tiers empty by themselves as their messages expire).")
  @Size(max = Bounds.STATUS_NAMES)
  private List<@Size(max = Bounds.BROKER_NAME) String> drainingQueues = new ArrayList<>();

  public String getService() {
    return service;
  }

  public void setService(String service) {
    this.service = service;
  }

  public Integer getCommandCount() {
    return commandCount;
  }

  public void setCommandCount(Integer commandCount) {
    this.commandCount = commandCount;
  }

  public String getUsername() {
    return username;
  }

  public void setUsername(String username) {
    this.username = username;
  }

  public String getCredentialsSecret() {
    return credentialsSecret;
  }

  public void setCredentialsSecret(String credentialsSecret) {
    this.credentialsSecret = credentialsSecret;
  }

  public String getDeployment() {
    return deployment;
  }

  public void setDeployment(String deployment) {
    this.deployment = deployment;
  }

  public List<String> getExchanges() {
    return exchanges;
  }

  public void setExchanges(List<String> exchanges) {
    this.exchanges = exchanges;
  }

  public List<String> getQueues() {
    return queues;
  }

  public void setQueues(List<String> queues) {
    this.queues = queues;
  }

  public List<ConsumerStatus> getCommands() {
    return commands;
  }

  public void setCommands(List<ConsumerStatus> commands) {
    this.commands = commands;
  }

  public List<ConsumerStatus> getSubscriptions() {
    return subscriptions;
  }

  public void setSubscriptions(List<ConsumerStatus> subscriptions) {
    this.subscriptions = subscriptions;
  }

  public Long getMessages() {
    return messages;
  }

  public void setMessages(Long messages) {
    this.messages = messages;
  }

  public Long getDeadLetters() {
    return deadLetters;
  }

  public void setDeadLetters(Long deadLetters) {
    this.deadLetters = deadLetters;
  }

  public Long getRetrying() {
    return retrying;
  }

  public void setRetrying(Long retrying) {
    this.retrying = retrying;
  }

  public List<String> getDrainingQueues() {
    return drainingQueues;
  }

  public void setDrainingQueues(List<String> drainingQueues) {
    this.drainingQueues = drainingQueues;
  }
}
