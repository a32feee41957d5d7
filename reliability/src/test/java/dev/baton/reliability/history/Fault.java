package dev.baton.reliability.history;

/** The faults a seed picks from; {@link Faults} injects them. */
public enum Fault {
  RUNTIME_KILLED("runtime SIGKILL + restart", false),
  WORKER_KILLED("pay worker SIGKILL + restart", false),
  RUNTIME_CONNECTIONS_CLOSED("runtime's broker connections closed", false),
  WORKER_CONNECTIONS_CLOSED("workers' connections closed mid-handler", false),
  WORKERS_CUT_OFF("workers cut off the broker", true),
  DELIVERIES_HELD("deliveries and confirms to workers held", true),
  MEMORY_ALARM("broker memory alarm", true),
  WORKFLOW_EDITED("a Workflow edited", false),
  DELIVERIES_DUPLICATED("every command and result delivered twice", true),
  WORKFLOW_DELETED("a Workflow deleted, its instances drained, and created again", false);

  private final String label;
  private final boolean lasts;

  Fault(String label, boolean lasts) {
    this.label = label;
    this.lasts = lasts;
  }

  public String label() {
    return label;
  }

  /** Whether the fault lasts a while (and its duration is part of the plan). */
  public boolean lasts() {
    return lasts;
  }
}
