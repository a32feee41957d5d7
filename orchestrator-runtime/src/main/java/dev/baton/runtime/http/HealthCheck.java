package dev.baton.runtime.http;

import java.util.List;
import java.util.Set;

/**
 * What {@code /healthz} reports: the database and the broker must both be reachable, and every consumer thread
 * (lane) of the step loop running; a broker that blocks publishers is reported, not counted as down.
 */
public interface HealthCheck {

  boolean databaseUp();

  boolean brokerUp();

  /** Workflows whose orchestrator queue is being consumed. */
  Set<String> consuming();

  /** Lanes that are not running, each with why; empty when all run. */
  List<String> lanesNotRunning();

  /**
   * Whether the broker blocks the runtime's publishing (a memory or disk alarm): reported as the broker's state
   * {@code BLOCKED}, and not a reason to be taken out of service (starts, cancels and timers go on; commands wait in
   * the outbox until the alarm clears).
   */
  default boolean brokerBlocked() {
    return false;
  }
}
