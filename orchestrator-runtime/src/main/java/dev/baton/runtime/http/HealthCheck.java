package dev.baton.runtime.http;

import java.util.List;
import java.util.Set;

/**
 * What {@code /healthz} reports: the database and the broker must both be reachable, and every consumer thread
 * (lane) of the step loop running.
 */
public interface HealthCheck {

  boolean databaseUp();

  boolean brokerUp();

  /** Workflows whose orchestrator queue is being consumed. */
  Set<String> consuming();

  /** Lanes that are not running, each with why; empty when all run. */
  List<String> lanesNotRunning();
}
