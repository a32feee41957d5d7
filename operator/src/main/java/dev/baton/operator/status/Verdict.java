package dev.baton.operator.status;

import dev.baton.operator.topology.SyncReport;
import java.util.Map;
import java.util.stream.Collectors;

/** The outcome of one concern of a reconciliation, as a condition will state it. */
public record Verdict(boolean ok, Reason reason, String message) {

  public static Verdict ok(Reason reason, String message) {
    return new Verdict(true, reason, message);
  }

  public static Verdict failed(Reason reason, String message) {
    return new Verdict(false, reason, message);
  }

  /**
   * The verdict on a topology pass: {@code applied} unless immutable properties stand in the way, then what to do.
   *
   * @param specFields the spec field behind each queue argument of this kind
   */
  public static Verdict of(SyncReport report, Map<String, String> specFields, Verdict applied) {
    if (report.mismatches().isEmpty()) {
      return applied;
    }
    return failed(Reason.IMMUTABLE_QUEUE_ARGUMENTS, report.mismatches().stream()
        .map(m -> m.advice(specFields)).collect(Collectors.joining("; ")));
  }
}
