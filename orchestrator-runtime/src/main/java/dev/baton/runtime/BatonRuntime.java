package dev.baton.runtime;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The orchestrator runtime as a component: database, step loop, outbox relay, timeout poller and HTTP API. Used by
 * the runtime's main, by {@code baton dev} and by tests.
 */
public final class BatonRuntime implements AutoCloseable {

  private BatonRuntime() {}

  /**
   * Migrates the database, learns Workflow definitions by watching them (read-only) through {@code client}, and
   * starts consuming and serving. The client stays owned by the caller.
   */
  public static BatonRuntime start(RuntimeSettings settings, KubernetesClient client) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** The port the HTTP API listens on. */
  public int httpPort() {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Stops consuming, lets in-flight events finish, then closes the broker and database connections. */
  @Override
  public void close() {}
}
