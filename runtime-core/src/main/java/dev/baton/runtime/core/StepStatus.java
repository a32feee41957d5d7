package dev.baton.runtime.core;

/** The status of one step attempt (a row of {@code instance_step}): a task's dispatch, a compensation's, a wait's... */
public enum StepStatus {
  RUNNING,
  SUCCEEDED,
  /** The worker answered {@code failed}: a business outcome; or an expression failed. */
  FAILED,
  /** The worker answered {@code error}: a technical failure after its retries. */
  ERROR,
  /** No answer (or no signal) before the step's timeout. */
  TIMED_OUT,
  CANCELLED;

  /** A failure: the instance stops starting steps, and it is the instance's {@code lastError}. */
  public boolean isFailure() {
    return this == FAILED || this == ERROR || this == TIMED_OUT;
  }

  /**
   * The step may have taken effect although it did not succeed (docs/design.md#runtime-semantics, unknown outcomes):
   * it timed out, ended in {@code error}, or was cancelled in flight. Such a task is compensated with the completed
   * ones when it declares {@code compensate}; a {@code failed} one (a business refusal) is not.
   */
  public boolean mayHaveTakenEffect() {
    return this == SUCCEEDED || this == ERROR || this == TIMED_OUT || this == CANCELLED;
  }

  /** A result arriving for an attempt in this status is recorded on it as late (and not applied). */
  public boolean acceptsLateResult() {
    return this == ERROR || this == TIMED_OUT || this == CANCELLED;
  }
}
