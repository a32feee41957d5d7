package dev.baton.runtime.store;

import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.Phase;
import java.time.Instant;
import java.util.UUID;

/**
 * A {@code workflow_instance} row. JSON columns stay text: the hot path parses only what it needs.
 *
 * @param stepName the step that started last (or where the instance stopped), as the API's currentStep
 * @param attempt that step's attempt
 * @param stepStartedAt when it started (the API's since)
 * @param stepDeadline the nearest deadline of the instance's steps in flight (null on the hot path)
 * @param traceparent the instance's trace: the span that started it (null for instances older than tracing)
 * @param createdBy who started it (the audit's user; null for instances older than the audit, and on the hot path)
 * @param deadline the whole instance's deadline ({@code spec.timeout} from its start or last retry), or null for none
 * @param pastDeadline whether that deadline had passed when the row was read, by the database's clock
 */
public record InstanceRecord(
    UUID id,
    String namespace,
    String workflow,
    int revision,
    String businessKey,
    InstanceStatus status,
    Phase phase,
    String stepName,
    int attempt,
    Instant stepStartedAt,
    Instant stepDeadline,
    String inputJson,
    String lastErrorJson,
    boolean cancelRequested,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt,
    String traceparent,
    String createdBy,
    Instant deadline,
    boolean pastDeadline) {

  /** The same row with a new deadline, not passed (a retry's). */
  public InstanceRecord withDeadline(Instant renewed) {
    return new InstanceRecord(id, namespace, workflow, revision, businessKey, status, phase, stepName, attempt,
        stepStartedAt, stepDeadline, inputJson, lastErrorJson, cancelRequested, createdAt, updatedAt, finishedAt,
        traceparent, createdBy, renewed, false);
  }
}
