package dev.baton.runtime.api;

import java.util.Set;

/** What {@code /healthz} reports: the database and the broker must both be reachable. */
public interface HealthCheck {

  boolean databaseUp();

  boolean brokerUp();

  /** Workflows whose orchestrator queue is being consumed. */
  Set<String> consuming();
}
