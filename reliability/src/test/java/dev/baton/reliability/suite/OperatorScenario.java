package dev.baton.reliability.suite;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.DeletionPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.OperatorSettings;
import dev.baton.reliability.infra.Infra;
import dev.baton.sandbox.MockKubernetes;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.slf4j.LoggerFactory;

/**
 * The operator against the private broker: the broker application stops while resources are created and deleted
 * (reconciles fail with BrokerUnavailable, deletions wait), comes back (everything Ready, deletions done), then 100
 * WorkerServices are applied and deleted in churn (half deleted while their first reconcile runs). Afterwards
 * nothing may be left of the deleted ones: no queue, exchange or user on the broker, no Secret in the API server.
 */
public final class OperatorScenario {

  static final String NS = "churn";
  static final Duration WITHIN = Duration.ofSeconds(90);

  private final Infra infra;
  private final int churn;

  public OperatorScenario(Infra infra, int churn) {
    this.infra = infra;
    this.churn = churn;
  }

  public Verdict run(Duration appDown) throws Exception {
    String vhost = infra.rabbit.createVhost("fi-operator");
    String prefix = "baton-fi" + UUID.randomUUID().toString().substring(0, 4) + "-";
    MockKubernetes kube = MockKubernetes.start(MockKubernetes.ALL_CRDS);
    KubernetesClient client = kube.client();
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    root.addAppender(logs);
    OperatorSettings settings = OperatorSettings.localDefaults().toBuilder()
        .managementUrl(infra.rabbit.managementUrl()).amqp("127.0.0.1", infra.rabbit.amqpPort()).vhost(vhost)
        .userPrefix(prefix).resync(Duration.ofSeconds(3)).serverSideApply(false).build();
    try (BatonOperator operator = BatonOperator.start(client, settings)) {
      // 1. ten steady services
      for (int i = 0; i < 10; i++) {
        create(client, "steady-" + i, i % 2 == 0);
      }
      long notReady = awaitCount(client, n -> n.startsWith("steady-") && !ready(client, n), 10);
      // 2. the broker goes away while five are created and three deleted
      infra.rabbit.stopApp();
      long errorsBefore = errors(logs);
      for (int i = 0; i < 5; i++) {
        create(client, "late-" + i, true);
      }
      for (int i = 0; i < 3; i++) {
        delete(client, "steady-" + i);
      }
      boolean sawUnavailable = Wait.until(Duration.ofSeconds(30), () -> IntStream.range(0, 5).allMatch(
          i -> "BrokerUnavailable".equals(reason(client, "late-" + i))));
      Wait.sleep(Math.max(0, appDown.toMillis() - 2_000));
      boolean heldByFinalizer = client.resources(WorkerService.class).inNamespace(NS).withName("steady-0").get() != null;
      long outageErrors = errors(logs) - errorsBefore;
      infra.rabbit.startApp();
      long t0 = System.nanoTime();
      boolean recovered = Wait.until(WITHIN, () -> IntStream.range(0, 5).allMatch(i -> ready(client, "late-" + i))
          && IntStream.range(3, 10).allMatch(i -> ready(client, "steady-" + i))
          && IntStream.range(0, 3).allMatch(i -> gone(client, "steady-" + i)));
      double recover = recovered ? (System.nanoTime() - t0) / 1e9 : Double.NaN;
      long afterRecovery = System.nanoTime();
      // 3. churn: apply/delete 100 resources, half of them deleted right after they were applied
      ExecutorService pool = Executors.newFixedThreadPool(8);
      for (int i = 0; i < churn; i++) {
        int k = i;
        pool.submit(() -> {
          create(client, "churn-" + k, k % 4 < 2);
          if (k % 2 == 0) {
            delete(client, "churn-" + k);
          }
        });
      }
      pool.shutdown();
      pool.awaitTermination(2, TimeUnit.MINUTES);
      boolean churnReady = Wait.until(WITHIN, () -> IntStream.range(0, churn).filter(i -> i % 2 == 1)
          .allMatch(i -> ready(client, "churn-" + i)));
      for (int i = 1; i < churn; i += 2) {
        delete(client, "churn-" + i);
      }
      boolean churnGone = Wait.until(WITHIN, () -> client.resources(WorkerService.class).inNamespace(NS).list()
          .getItems().stream().noneMatch(w -> w.getMetadata().getName().startsWith("churn-")));
      double drain = churnGone ? (System.nanoTime() - afterRecovery) / 1e9 : Double.NaN;
      Wait.sleep(2_000); // one more resync: late reconciles of deleted resources must not bring anything back
      Predicate<String> deleted = name -> name.contains("churn-") || name.contains("steady-0")
          || name.contains("steady-1") || name.contains("steady-2");
      long leakedQueues = infra.rabbit.management().getQueues(vhost).stream().filter(q -> deleted.test(q.getName()))
          .count();
      long leakedExchanges = infra.rabbit.management().getExchanges(vhost).stream()
          .filter(e -> deleted.test(e.getName())).count();
      long leakedUsers = infra.rabbit.management().getUsers().stream()
          .filter(u -> u.getName().startsWith(prefix) && deleted.test(u.getName())).count();
      long leakedSecrets = client.resources(Secret.class).inNamespace(NS).list().getItems().stream()
          .filter(s -> deleted.test(s.getMetadata().getName())).count();
      long survivors = client.resources(WorkerService.class).inNamespace(NS).list().getItems().size();
      long stillPresent = client.resources(WorkerService.class).inNamespace(NS).list().getItems().stream()
          .filter(w -> deleted.test(w.getMetadata().getName())).count();
      long notReadyAfter = client.resources(WorkerService.class).inNamespace(NS).list().getItems().stream()
          .filter(w -> !deleted.test(w.getMetadata().getName()) && !ready(client, w.getMetadata().getName())).count();
      long totalErrors = errors(logs);
      String notes = "broker down " + appDown.toSeconds() + "s: BrokerUnavailable shown " + sawUnavailable
          + ", deletion held by finalizer " + heldByFinalizer + ", ERROR lines during the outage " + outageErrors
          + " (whole run " + totalErrors + "); leaked queues " + leakedQueues + ", exchanges " + leakedExchanges
          + ", users " + leakedUsers + ", Secrets " + leakedSecrets + "; survivors " + survivors + " (12 expected)"
          + (notReady > 0 ? "; " + notReady + " steady never Ready" : "") + (churnReady ? "" : "; churn not all Ready");
      long lost = notReady + (churnReady ? 0 : 1) + (sawUnavailable ? 0 : 1);
      return new Verdict("operator: broker down during reconcile + churn of " + churn, 15 + churn,
          "stop_app " + appDown.toSeconds() + "s, " + churn + " applied/deleted", lost, 0, stillPresent + notReadyAfter,
          0, 0, leakedQueues + leakedExchanges + leakedUsers + leakedSecrets, recover, drain, notes);
    } finally {
      root.detachAppender(logs);
      infra.rabbit.management().getUsers().stream().filter(u -> u.getName().startsWith(prefix))
          .forEach(u -> infra.rabbit.management().deleteUser(u.getName()));
      infra.rabbit.management().deleteVhost(vhost);
      kube.close();
    }
  }

  private static long errors(ListAppender<ILoggingEvent> logs) {
    synchronized (logs) {
      return logs.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR)).count();
    }
  }

  private static void create(KubernetesClient client, String name, boolean deletePolicy) {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(name).build());
    WorkerServiceSpec spec = new WorkerServiceSpec();
    spec.getCommands().add(new CommandSpec("work", null));
    spec.getCommands().add(new CommandSpec("undo", null));
    spec.setDeletionPolicy(deletePolicy ? DeletionPolicy.Delete : DeletionPolicy.Retain);
    ws.setSpec(spec);
    client.resource(ws).create();
  }

  private static void delete(KubernetesClient client, String name) {
    client.resources(WorkerService.class).inNamespace(NS).withName(name).delete();
  }

  private static boolean gone(KubernetesClient client, String name) {
    return client.resources(WorkerService.class).inNamespace(NS).withName(name).get() == null;
  }

  private static String reason(KubernetesClient client, String name) {
    WorkerService ws = client.resources(WorkerService.class).inNamespace(NS).withName(name).get();
    if (ws == null || ws.getStatus() == null) {
      return null;
    }
    return ws.getStatus().condition(ConditionTypes.READY).map(c -> c.getReason()).orElse(null);
  }

  private static boolean ready(KubernetesClient client, String name) {
    WorkerService ws = client.resources(WorkerService.class).inNamespace(NS).withName(name).get();
    return ws != null && ws.getStatus() != null && ws.getStatus().condition(ConditionTypes.READY)
        .map(c -> "True".equals(c.getStatus())).orElse(false);
  }

  /** Waits up to {@link #WITHIN} until fewer than one of {@code total} match {@code bad}; returns how many still do. */
  private static long awaitCount(KubernetesClient client, Predicate<String> bad, int total) {
    Wait.until(WITHIN, () -> client.resources(WorkerService.class).inNamespace(NS).list().getItems().stream()
        .noneMatch(w -> bad.test(w.getMetadata().getName())));
    return client.resources(WorkerService.class).inNamespace(NS).list().getItems().stream()
        .filter(w -> bad.test(w.getMetadata().getName())).count();
  }
}
