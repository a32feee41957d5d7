package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.baton.contract.topology.QueueType;

/** RabbitMQ queue type. */
public enum QueueKind {
  @JsonProperty("classic")
  CLASSIC,
  @JsonProperty("quorum")
  QUORUM;

  public QueueType toQueueType() {
    return this == QUORUM ? QueueType.QUORUM : QueueType.CLASSIC;
  }
}
