package dev.baton.runtime.engine;

/** The status of one step execution (one dispatch of a step or of its compensation). */
public enum ExecutionStatus {
  RUNNING,
  SUCCEEDED,
  /** The worker answered {@code failed}: a business outcome. */
  FAILED,
  /** The worker answered {@code error}: a technical failure after its retries. */
  ERROR,
  /** No answer before the step's timeout. */
  TIMED_OUT,
  CANCELLED;

  /** Statuses that make the instance's {@code lastError}. */
  public boolean isFailure() {
    return this == FAILED || this == ERROR || this == TIMED_OUT;
  }
}
