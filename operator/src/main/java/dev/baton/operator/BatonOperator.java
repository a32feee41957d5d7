package dev.baton.operator;

import dev.baton.contract.probes.ProbeServer;
import dev.baton.operator.broker.AmqpBrokerClient;
import dev.baton.operator.broker.BrokerClient;
import dev.baton.operator.broker.BrokerSnapshot;
import dev.baton.operator.monitoring.KubeEvents;
import dev.baton.operator.monitoring.OperatorHealth;
import dev.baton.operator.monitoring.OperatorMetrics;
import dev.baton.operator.reconciler.RetryPolicyReconciler;
import dev.baton.operator.reconciler.WorkerServiceReconciler;
import dev.baton.operator.reconciler.WorkflowReconciler;
import dev.baton.operator.runtime.RuntimeBrokerUser;
import dev.baton.operator.topology.OutcomeExchange;
import dev.baton.operator.topology.WorkerUserSync;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfigurationBuilder;
import java.time.Clock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator as a component: registers the reconcilers with JOSDK against a Kubernetes client and starts them,
 * with its metrics, its HTTP endpoint, leader election, the vhost's instance outcome exchange and the runtime's broker
 * user as the settings ask. Used by
 * the operator's main, by {@code baton dev} and by tests.
 */
public final class BatonOperator implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BatonOperator.class);

  private final Operator operator;
  private final OperatorMetrics metrics;
  private final ProbeServer http;
  private final RuntimeBrokerUser runtimeUser;
  private final OutcomeExchange outcomeExchange;
  private final BrokerSnapshot broker;
  /** The broker client {@link #start(KubernetesClient, OperatorSettings)} opened, closed with the operator. */
  private volatile AutoCloseable ownBroker;
  private volatile boolean closing;

  private BatonOperator(OperatorSettings settings, KubernetesClient client, BrokerClient brokerClient) {
    Clock clock = Clock.systemUTC();
    this.metrics = new OperatorMetrics();
    // One listing of the broker per interval, shared by every reconciliation (and the runtime's user).
    this.broker = new BrokerSnapshot(brokerClient, settings.snapshotMaxAge(), clock);
    this.runtimeUser = settings.runtimeCredentialsSecret() == null ? null
        : new RuntimeBrokerUser(client, new WorkerUserSync(broker), settings);
    this.outcomeExchange = new OutcomeExchange(broker, settings.resync());
    KubeEvents events = KubeEvents.to(client, clock);
    this.operator = new Operator(o -> {
      o.withKubernetesClient(client)
          .withCloseClientOnStop(false)
          .withConcurrentReconciliationThreads(settings.reconcileThreads())
          // The WorkerService reconciler runs its dependents in JOSDK's workflow pool: as many.
          .withConcurrentWorkflowExecutorThreads(settings.reconcileThreads())
          .withMetrics(metrics.josdk())
          // Server-side apply stays on for real clusters; the fabric8 mock API server does not support it.
          .withUseSSAToPatchPrimaryResource(settings.serverSideApply())
          .withSSABasedCreateUpdateMatchForDependentResources(settings.serverSideApply());
      if (settings.leaderElection()) {
        o.withLeaderElectionConfiguration(LeaderElectionConfigurationBuilder
            .aLeaderElectionConfiguration(settings.leaseName())
            .withLeaseNamespace(settings.leaseNamespace())
            .withLeaderCallbacks(new LeaderCallbacks(this::startedLeading, this::stoppedLeading,
                leader -> LOG.info("Baton operator leader is now {}", leader)))
            // Exiting is ours to decide (stoppedLeading): JOSDK's exit would also fire on a clean close.
            .withExitOnStopLeading(false)
            .build());
      }
    });
    // The maximum reconciliation interval is the drift-repairing resync: every resource is compared with the broker
    // and its Secret and Deployment at least that often, whatever happened behind the operator's back.
    operator.register(new RetryPolicyReconciler(clock, events), controller(settings));
    operator.register(new WorkerServiceReconciler(broker, settings, clock, events, metrics), controller(settings));
    operator.register(new WorkflowReconciler(broker, settings, clock, events), controller(settings));
    this.http = settings.httpPort() == 0 ? null
        : ProbeServer.start("baton-operator", "BATON_OPERATOR_HTTP_PORT; 0 turns it off", settings.httpHost(),
            settings.httpPort(), new OperatorHealth(operator), metrics::scrape);
  }

  /**
   * Starts the reconcilers of RetryPolicy, WorkerService and Workflow. The client stays owned by the caller
   * (it is not closed on {@link #close()}).
   */
  public static BatonOperator start(KubernetesClient client, OperatorSettings settings) {
    AmqpBrokerClient broker = AmqpBrokerClient.create(settings);
    BatonOperator baton;
    try {
      baton = start(client, settings, broker);
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
    baton.ownBroker = broker;
    return baton;
  }

  /** As {@link #start(KubernetesClient, OperatorSettings)}, with the given broker client (tests use a fake). */
  public static BatonOperator start(KubernetesClient client, OperatorSettings settings, BrokerClient broker) {
    if (settings.runtimeCredentialsSecret() != null) {
      settings.runtimeCredentialsName(); // fails fast on a malformed namespace/name
    }
    if (settings.runtimeApiTokens() != null) {
      // Before anything reads the runtime: the token sent is the Secret's, made now if it is missing. A failure
      // (API server unreachable, no permission) stops the start; the pod restarts and tries again.
      settings = settings.toBuilder().runtimeToken(settings.runtimeApiTokens().ensure(client)).build();
    }
    BatonOperator baton = new BatonOperator(settings, client, broker);
    try {
      baton.operator.start();
    } catch (RuntimeException e) {
      baton.close();
      throw e;
    }
    if (!settings.leaderElection()) {
      baton.startedLeading();
    }
    LOG.info("Baton operator started: {}", settings);
    return baton;
  }

  /** The port of the HTTP endpoint ({@code /metrics}, {@code /healthz}), or 0 when there is none. */
  public int httpPort() {
    return http == null ? 0 : http.port();
  }

  public OperatorMetrics metrics() {
    return metrics;
  }

  /** How many times the broker was listed since the start (one listing serves every reconciliation meanwhile). */
  public long brokerListings() {
    return broker.listings();
  }

  /** Stops the reconcilers; in-flight reconciliations finish first. */
  @Override
  public void close() {
    closing = true;
    if (runtimeUser != null) {
      runtimeUser.close();
    }
    outcomeExchange.close();
    try {
      operator.stop();
    } finally {
      if (http != null) {
        http.close();
      }
      closeOwnBroker();
    }
  }

  private void closeOwnBroker() {
    try {
      if (ownBroker != null) {
        ownBroker.close();
      }
    } catch (Exception e) {
      LOG.debug("closing the broker client", e);
    }
  }

  /** Work only the leader does besides reconciling (JOSDK starts the reconcilers of a new leader itself). */
  private void startedLeading() {
    metrics.leading();
    if (runtimeUser != null && !closing) {
      runtimeUser.start();
    }
    if (!closing) {
      outcomeExchange.start(); // the vhost's instance outcome exchange, which the runtime publishes to
    }
  }

  /**
   * A leader that lost its Lease while running must stop at once, or two replicas would reconcile side by side; the
   * Deployment restarts it as a candidate. Losing it because this operator is closing is the normal end.
   */
  private void stoppedLeading() {
    if (!closing) {
      LOG.error("Baton operator lost its leadership (Lease not renewed in time): exiting so that only the new leader "
          + "reconciles");
      System.exit(1);
    }
  }

  private static <R extends io.fabric8.kubernetes.api.model.HasMetadata> Consumer<ControllerConfigurationOverrider<R>>
      controller(OperatorSettings settings) {
    return c -> {
      c.withReconciliationMaxInterval(settings.resync());
      if (!settings.namespaces().isEmpty()) {
        c.settingNamespaces(settings.namespaces());
      }
    };
  }
}
