package dev.baton.runtime.engine;

/** What the state machine decided for one stimulus (an event, a timeout, a start, cancel or retry). */
public sealed interface Decision {

  /** Nothing changes: a stale or unexpected event (ACKed and ignored), or a refused API call (409). */
  record NoChange(String reason) implements Decision {}

  /**
   * The instance moves.
   *
   * @param outcome how the execution in flight ends; null when none is in flight (start, retry)
   * @param next what follows
   */
  record Change(Outcome outcome, Move next) implements Decision {

    /** A failed, errored or timed-out execution becomes the instance's last error. */
    public boolean recordsError() {
      return outcome != null && outcome.status().isFailure();
    }
  }
}
