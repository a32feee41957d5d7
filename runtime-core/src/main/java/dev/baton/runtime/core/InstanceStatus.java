package dev.baton.runtime.core;

import java.util.Optional;

/** The status of a workflow instance, exactly as the HTTP API shows it (docs/design.md#interfaces). */
public enum InstanceStatus {
  RUNNING,
  SUCCEEDED,
  FAILED,
  COMPENSATING,
  COMPENSATED,
  CANCELLED;

  /** A step (or a compensation) is in flight: events and timeouts can still move the instance. */
  public boolean isActive() {
    return this == RUNNING || this == COMPENSATING;
  }

  public static Optional<InstanceStatus> parse(String text) {
    for (InstanceStatus s : values()) {
      if (s.name().equals(text)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
