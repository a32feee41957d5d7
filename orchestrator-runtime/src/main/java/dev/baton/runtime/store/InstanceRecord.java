package dev.baton.runtime.store;

import dev.baton.runtime.engine.InstanceState;
import dev.baton.runtime.engine.InstanceStatus;
import dev.baton.runtime.engine.Phase;
import java.time.Instant;
import java.util.UUID;

/**
 * A {@code workflow_instance} row. JSON columns stay text: the hot path parses only what it needs.
 *
 * @param stepElapsedMillis time since the current step was dispatched, by the database clock (for latency metrics)
 */
public record InstanceRecord(
    UUID id,
    String namespace,
    String workflow,
    int revision,
    String businessKey,
    InstanceStatus status,
    Phase phase,
    int stepIndex,
    String stepName,
    Long currentExecutionId,
    int attempt,
    int dispatches,
    Instant stepStartedAt,
    Instant stepDeadline,
    String inputJson,
    String outputsJson,
    String lastErrorJson,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt,
    long stepElapsedMillis) {

  public InstanceState state() {
    return new InstanceState(status, phase, stepIndex, attempt, dispatches);
  }
}
