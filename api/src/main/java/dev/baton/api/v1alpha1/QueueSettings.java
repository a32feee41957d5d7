package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.ValidationRule;

/** Queue settings of a WorkerService. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class QueueSettings {

  /** Why a queue's type cannot change at admission (a transition rule, on every resource with a queue type). */
  public static final String TYPE_IS_IMMUTABLE = "the queue type cannot change: RabbitMQ cannot change the type of an "
      + "existing queue. Create a new resource with the new type, move the work over, then delete this one";

  @JsonPropertyDescription("Queue type of every queue of the service: classic or quorum (replicated; use it on a RabbitMQ cluster). "
      + "Fixed once created: RabbitMQ cannot change the type of an existing queue.")
  @Default("classic")
  @ValidationRule(value = "self == oldSelf", message = TYPE_IS_IMMUTABLE)
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
