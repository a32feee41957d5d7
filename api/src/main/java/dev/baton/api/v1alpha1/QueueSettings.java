package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;

/** Queue settings of a WorkerService. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueueSettings {

  @JsonPropertyDescription("Queue type of every queue of the service: classic or quorum (replicated; use it on a RabbitMQ cluster). "
      + "RabbitMQ cannot change the type of an existing queue: changing it later asks you to drain and delete the queues.")
  @Default("classic")
  private QueueKind type = QueueKind.CLASSIC;

  @JsonPropertyDescription("Unacknowledged messages a worker holds at once per queue (AMQP prefetch); passed to the workers as BATON_PREFETCH.")
  @Min(1)
  @Max(65535)
  @Default("10")
  private Integer prefetch = 10;

  public QueueKind getType() {
    return type;
  }

  public void setType(QueueKind type) {
    this.type = type;
  }

  public Integer getPrefetch() {
    return prefetch;
  }

  public void setPrefetch(Integer prefetch) {
    this.prefetch = prefetch;
  }
}
