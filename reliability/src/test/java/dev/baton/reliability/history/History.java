package dev.baton.reliability.history;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a run left behind, as the checker reads it: the starts the API accepted, the runtime's instances, their step
 * attempts ({@code instance_step}) and outbox rows, and the workers' effects (the ledger's {@code effect}).
 */
public record History(Set<String> acceptedKeys, List<Instance> instances, List<StepAttempt> steps,
    List<Effect> effects, List<OutboxRow> outbox) {

  /** The statuses an instance ends in. */
  public static final Set<String> ENDED_STATUSES = Set.of("SUCCEEDED", "FAILED", "COMPENSATED", "CANCELLED");

  /**
   * An instance. {@code compensations}: step → compensating command, for every task of its revision that declares
   * {@code compensate}; {@code cancelCompensate}: a cancel asked it to compensate.
   */
  public record Instance(String id, String businessKey, String workflow, int revision, String status,
      boolean cancelCompensate, Instant createdAt, Instant finishedAt, Map<String, String> compensations) {

    public boolean ended() {
      return ENDED_STATUSES.contains(status) && finishedAt != null;
    }
  }

  /** One attempt of a step ({@code name} is {@code <step>/compensate} for a compensation). */
  public record StepAttempt(String instanceId, String name, String kind, int attempt, String status,
      String action, Instant startedAt, Instant finishedAt, String errorCode, boolean late) {

    @Override
    public String toString() {
      return name + "#" + attempt + " " + status + (errorCode == null ? "" : "/" + errorCode) + (late ? " (late answer)"
          : "") + " " + startedAt + "–" + finishedAt;
    }
  }

  /** An effect a worker committed: a forward command or a compensation, by its action. */
  public record Effect(String instanceId, String step, String action, int attempt, String messageId, Instant at,
      Instant deadline) {}

  /** A command still in the outbox. */
  public record OutboxRow(long id, String instanceId, String routingKey, Instant createdAt) {}
}
