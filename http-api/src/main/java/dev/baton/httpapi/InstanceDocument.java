package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;

/**
 * An instance as the API shows it (docs/design.md#interfaces), with what answers "which step, which attempt, since
 * when, and the last error" in one read: {@code currentStep}, {@code attempt}, {@code since}, {@code lastError}.
 *
 * <p>Two forms: the full one ({@code GET /api/v1/instances/{id}}, and the answers of start, cancel, retry and
 * signal) carries {@code input}, the {@code outputs} by step and every attempt of every step in {@code steps}
 * (compensations as tasks named {@code <step>/compensate}), oldest first; the list's items leave those three and the {@code audit} out.
 *
 * @param traceId the instance's trace (W3C trace id), or null without tracing
 * @param phase {@code FORWARD} or {@code COMPENSATION}
 * @param since when the current step's attempt started
 * @param deadline when the current step's attempt times out, or null
 * @param instanceDeadline when the whole instance times out ({@code spec.timeout} from its start, or from its last
 *     retry), or null when its Workflow sets none
 * @param createdBy who started the instance ({@link AuditEntry#user}), or null for instances older than the audit
 * @param audit every action taken on the instance, oldest first (full form only)
 * @param parent the instance whose child workflow step started this one, or null (full form only)
 * @param children the instances this one's child workflow steps started, or null for none (full form only)
 */
public record InstanceDocument(
    String id,
    String namespace,
    String workflow,
    int revision,
    String businessKey,
    String traceId,
    String status,
    String phase,
    String currentStep,
    int attempt,
    Instant since,
    Instant deadline,
    Instant instanceDeadline,
    LastError lastError,
    Instant createdAt,
    Instant updatedAt,
    Instant finishedAt,
    String createdBy,
    @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode input,
    @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode outputs,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<StepDocument> steps,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<AuditEntry> audit,
    @JsonInclude(JsonInclude.Include.NON_NULL) InstanceLink parent,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<InstanceLink> children) {

  /** An instance without links to others (no child workflow step started it or was started by it). */
  public InstanceDocument(String id, String namespace, String workflow, int revision, String businessKey,
      String traceId, String status, String phase, String currentStep, int attempt, Instant since, Instant deadline,
      Instant instanceDeadline, LastError lastError, Instant createdAt, Instant updatedAt, Instant finishedAt,
      String createdBy, JsonNode input, JsonNode outputs, List<StepDocument> steps, List<AuditEntry> audit) {
    this(id, namespace, workflow, revision, businessKey, traceId, status, phase, currentStep, attempt, since,
        deadline, instanceDeadline, lastError, createdAt, updatedAt, finishedAt, createdBy, input, outputs, steps,
        audit, null, null);
  }

  /** The same instance with its links. */
  public InstanceDocument withLinks(InstanceLink parent, List<InstanceLink> children) {
    return new InstanceDocument(id, namespace, workflow, revision, businessKey, traceId, status, phase, currentStep,
        attempt, since, deadline, instanceDeadline, lastError, createdAt, updatedAt, finishedAt, createdBy, input,
        outputs, steps, audit, parent, children == null || children.isEmpty() ? null : List.copyOf(children));
  }

  /** The list form of this instance: without input, outputs, steps and audit. */
  public InstanceDocument summary() {
    return new InstanceDocument(id, namespace, workflow, revision, businessKey, traceId, status, phase, currentStep,
        attempt, since, deadline, instanceDeadline, lastError, createdAt, updatedAt, finishedAt, createdBy, null, null,
        null, null);
  }

  /** Whether the instance has ended (SUCCEEDED, FAILED, COMPENSATED or CANCELLED). */
  public boolean finished() {
    return finishedAt != null;
  }
}
