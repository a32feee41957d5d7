package dev.baton.runtime.core;

/** Which way an instance walks its steps: forward through the steps, or back through their compensations. */
public enum Phase {
  FORWARD("STEP"),
  COMPENSATION("COMPENSATION");

  private final String executionKind;

  Phase(String executionKind) {
    this.executionKind = executionKind;
  }

  /** The {@code kind} of the step executions of this phase: STEP or COMPENSATION. */
  public String executionKind() {
    return executionKind;
  }

  /** The instance status while a step of this phase is in flight. */
  public InstanceStatus activeStatus() {
    return this == FORWARD ? InstanceStatus.RUNNING : InstanceStatus.COMPENSATING;
  }
}
