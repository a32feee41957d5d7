package dev.baton.runtime.engine;

/** How the execution in flight ends, with the error code and reason of a failure. */
public record Outcome(ExecutionStatus status, String errorCode, String reason) {

  /** The reason of a step that got no answer in time (docs/design.md#runtime-semantics). */
  public static final String TIMEOUT_REASON = "Timeout";

  public static Outcome succeeded() {
    return new Outcome(ExecutionStatus.SUCCEEDED, null, null);
  }

  public static Outcome timedOut() {
    return new Outcome(ExecutionStatus.TIMED_OUT, "Timeout", TIMEOUT_REASON);
  }

  public static Outcome cancelled() {
    return new Outcome(ExecutionStatus.CANCELLED, null, "Cancelled");
  }
}
