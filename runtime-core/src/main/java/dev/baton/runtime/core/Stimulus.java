package dev.baton.runtime.core;

/** What can move an instance: the state machine takes one at a time, on the locked instance. */
public sealed interface Stimulus {

  /** A new instance: its first steps start. */
  record Start() implements Stimulus {}

  /** A worker's result for one attempt of a task or of its compensation. */
  record Result(InboundEvent event) implements Stimulus {}

  /** Steps in flight whose deadline has passed (those marked {@link StepState#due()}): timeouts and delays. */
  record TimersDue() implements Stimulus {}

  /** A signal was stored for the instance: a wait for it may go on. */
  record SignalStored(String signal) implements Stimulus {}

  /** Stop the instance; with {@code compensate}, undo the completed and unknown-outcome steps first. */
  record Cancel(boolean compensate) implements Stimulus {}

  /** Send the failed steps (or the failed compensation) of a FAILED instance again, as new attempts. */
  record Retry() implements Stimulus {}
}
