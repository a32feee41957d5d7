package dev.baton.operator.status;

import dev.baton.operator.topology.SyncReport;
import java.util.Map;
import java.util.stream.Collectors;

/** The outcome of one concern of a reconciliation, as a condition will state it. */
public record ConditionState(boolean ok, Reason reason, String message) {

  public static ConditionState ok(Reason reason, String message) {
    return new ConditionState(true, reason, message);
  }

  public static ConditionState failed(Reason reason, String message) {
    return new ConditionState(false, reason, message);
  }

  /**
   * The verdict on a topology pass: {@code applied} unless immutable properties stand in the way, then what to do.
   *
   * @param specFields the spec field behind each queue argument of this kind
   */
  public static ConditionState of(SyncReport report, Map<String, String> specFields, ConditionState applied) {
    if (report.mismatches().isEmpty()) {
      return applied;
    }
    return failed(Reason.IMMUTABLE_QUEUE_ARGUMENTS, report.mismatches().stream()
        .map(m -> m.advice(specFields)).collect(Collectors.joining("; ")));
  }
}
