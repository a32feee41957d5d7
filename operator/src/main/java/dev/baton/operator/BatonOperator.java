package dev.baton.operator;

import io.fabric8.kubernetes.client.KubernetesClient;

/**
 * The operator as a component: registers the reconcilers with JOSDK against a Kubernetes client and starts them.
 * Used by the operator's main, by {@code baton dev} and by tests.
 */
public final class BatonOperator implements AutoCloseable {

  private BatonOperator() {}

  /**
   * Starts the reconcilers of RetryPolicy, WorkerService and Workflow. The client stays owned by the caller
   * (it is not closed on {@link #close()}).
   */
  public static BatonOperator start(KubernetesClient client, OperatorSettings settings) {
    throw new UnsupportedOperationException("not implemented yet");
  }

  /** Stops the reconcilers; in-flight reconciliations finish first. */
  @Override
  public void close() {}
}
