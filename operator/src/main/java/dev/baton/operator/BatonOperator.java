package dev.baton.operator;

import dev.baton.operator.broker.BrokerClient;
import dev.baton.operator.broker.HopBrokerClient;
import dev.baton.operator.reconciler.RetryPolicyReconciler;
import dev.baton.operator.reconciler.WorkerServiceReconciler;
import dev.baton.operator.reconciler.WorkflowReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.Operator;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator as a component: registers the reconcilers with JOSDK against a Kubernetes client and starts them.
 * Used by the operator's main, by {@code baton dev} and by tests.
 */
public final class BatonOperator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BatonOperator.class);

  private final Operator operator;

  private BatonOperator(Operator operator) {
    this.operator = operator;
  }

  /**
   * Starts the reconcilers of RetryPolicy, WorkerService and Workflow. The client stays owned by the caller
   * (it is not closed on {@link #close()}).
   */
  public static BatonOperator start(KubernetesClient client, OperatorSettings settings) {
    BrokerClient broker = HopBrokerClient.create(settings.managementUrl(), settings.adminUsername(),
        settings.adminPassword(), settings.vhost());
    return start(client, settings, broker);
  }

  /** As {@link #start(KubernetesClient, OperatorSettings)}, with the given broker client (tests use a fake). */
  public static BatonOperator start(KubernetesClient client, OperatorSettings settings, BrokerClient broker) {
    Clock clock = Clock.systemUTC();
    Operator operator = new Operator(o -> o
        .withKubernetesClient(client)
        .withCloseClientOnStop(false)
        // Server-side apply stays on for real clusters; the fabric8 mock API server does not support it.
        .withUseSSAToPatchPrimaryResource(settings.serverSideApply())
        .withSSABasedCreateUpdateMatchForDependentResources(settings.serverSideApply()));
    // The maximum reconciliation interval is the drift-repairing resync: every resource is compared with the broker
    // and its Secret and Deployment at least that often, whatever happened behind the operator's back.
    operator.register(new RetryPolicyReconciler(clock), c -> c.withReconciliationMaxInterval(settings.resync()));
    operator.register(new WorkerServiceReconciler(broker, settings, clock),
        c -> c.withReconciliationMaxInterval(settings.resync()));
    operator.register(new WorkflowReconciler(broker, settings, clock),
        c -> c.withReconciliationMaxInterval(settings.resync()));
    operator.start();
    LOG.info("Baton operator started: {}", settings);
    return new BatonOperator(operator);
  }

  /** Stops the reconcilers; in-flight reconciliations finish first. */
  @Override
  public void close() {
    operator.stop();
  }
}
