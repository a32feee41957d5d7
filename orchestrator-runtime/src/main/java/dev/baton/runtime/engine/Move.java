package dev.baton.runtime.engine;

/** Where an instance goes next. */
public sealed interface Move {

  /** Send the command of a step (forward) or of its compensation, as a new execution. */
  record Dispatch(Phase phase, int stepIndex, int attempt, int dispatches) implements Move {
    public InstanceStatus status() {
      return phase.activeStatus();
    }
  }

  /** The instance ends with this status; nothing is sent. */
  record Finish(InstanceStatus status) implements Move {}
}
