package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.retryPolicy;
import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.QueueKind;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the schema would reject (the mock API server lets everything through) and what no schema can see ends as a
 * condition with a reason — never an exception loop, never a half-applied topology. The resync is 2 s, so a few
 * seconds of calm cover several reconciliations.
 */
class BadInputIT {

  static final String NS = "bad";
  static final Duration CALM = Duration.ofSeconds(5);
  static OperatorFixture f;
  static BrokerState broker;
  static LogCapture logs;

  @BeforeAll
  static void start() {
    logs = new LogCapture();
    f = OperatorFixture.start("bad");
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
    logs.close();
  }

  @Test
  void badSpecsEndAsConditionsAndStayCalm() {
    f.create(retryPolicy(NS, "sloppy", 3, "30s", "soon"));
    f.create(workerService(NS, "dlx", "pay"));
    f.create(workerService(NS, "pay.v2", "pay"));
    f.create(workerService(NS, "needy", "pay:gentle"));
    f.create(workflow(NS, "twice", "order", step("a", "needy", "pay", null), step("a", "needy", "pay", null)));

    assertThat(f.awaitReady(RetryPolicy.class, NS, "sloppy", false, "InvalidSpec").getMessage())
        .contains("spec.delays[1]: 'soon' is not a duration");
    assertThat(f.awaitReady(WorkerService.class, NS, "dlx", false, "InvalidSpec").getMessage())
        .contains("'dlx' is reserved");
    assertThat(f.awaitReady(WorkerService.class, NS, "pay.v2", false, "InvalidSpec").getMessage())
        .contains("metadata.name 'pay.v2' cannot be used as the service name").contains("set spec.service");
    assertThat(f.awaitReady(WorkerService.class, NS, "needy", false, "MissingRetryPolicy").getMessage())
        .contains("uses RetryPolicy 'gentle', which does not exist in namespace 'bad'");
    assertThat(f.awaitReady(Workflow.class, NS, "twice", false, "InvalidSpec").getMessage())
        .contains("step name 'a' is already used by spec.steps[0]");
    assertThat(broker.queues()).as("nothing is declared for a bad spec")
        .doesNotContainKeys("q.dlx.pay", "q.needy.pay", "q.orchestrator.twice");
    assertThat(broker.exchanges()).doesNotContainKeys("dlx.command.topic.ex", "needy.command.topic.ex",
        "pay.v2.command.topic.ex");
    assertThat(f.condition(WorkerService.class, NS, "dlx", ConditionTypes.DEPLOYMENT_READY).orElseThrow().getReason())
        .isEqualTo("NotRequested");

    assertCalm(List.of(
        () -> f.get(RetryPolicy.class, NS, "sloppy"), () -> f.get(WorkerService.class, NS, "dlx"),
        () -> f.get(WorkerService.class, NS, "pay.v2"), () -> f.get(WorkerService.class, NS, "needy"),
        () -> f.get(Workflow.class, NS, "twice")));

    // The missing RetryPolicy appears: the WorkerService that waits for it gets ready without a resync.
    f.create(retryPolicy(NS, "gentle", 2, "1s"));
    f.awaitReady(WorkerService.class, NS, "needy", true, "Ready");
  }

  @Test
  void aRenameThatFailsAPassStillRetiresTheOldName() {
    f.create(workerService(NS, "renamer", s -> s.setService("before"), "charge"));
    f.awaitReady(WorkerService.class, NS, "renamer", true, "Ready");
    assertThat(f.management.getUser(f.username("before"))).isNotNull();

    // Renamed in the same edit that breaks the spec: that pass fails; the name in use stays 'before'.
    f.edit(WorkerService.class, NS, "renamer", ws -> {
      ws.getSpec().setService("after");
      ws.getSpec().getCommands().get(0).setRetryPolicy("nowhere");
      return ws;
    });
    f.awaitReady(WorkerService.class, NS, "renamer", false, "MissingRetryPolicy");
    assertThat(f.get(WorkerService.class, NS, "renamer").getStatus().getService()).isEqualTo("before");

    f.edit(WorkerService.class, NS, "renamer", ws -> {
      ws.getSpec().getCommands().get(0).setRetryPolicy(null);
      return ws;
    });
    f.awaitReady(WorkerService.class, NS, "renamer", true, "Ready");
    await().atMost(WITHIN).untilAsserted(() -> {
      assertThat(f.management.getUser(f.username("before"))).as("the old name's user is retired").isNull();
      assertThat(broker.queues()).containsKey("q.after.charge").doesNotContainKey("q.before.charge");
    });
    assertThat(f.get(WorkerService.class, NS, "renamer").getStatus().getService()).isEqualTo("after");
  }

  @Test
  void anUnownedSecretOrDeploymentOfTheSameNameIsAConflictAndIsLeftAlone() {
    f.create(new io.fabric8.kubernetes.api.model.SecretBuilder().withNewMetadata().withNamespace(NS)
        .withName("taken-broker-credentials").endMetadata().addToStringData("password", "someone-elses").build());
    f.create(workerService(NS, "taken", "charge"));

    assertThat(f.awaitReady(WorkerService.class, NS, "taken", false, "Conflict").getMessage())
        .contains("Secret taken-broker-credentials already exists").contains("neither adopts nor overwrites it");
    assertThat(f.get(io.fabric8.kubernetes.api.model.Secret.class, NS, "taken-broker-credentials").getMetadata()
        .getOwnerReferences()).as("not adopted").isEmpty();
    assertThat(broker.queues()).as("nothing declared for it").doesNotContainKey("q.taken.charge");

    f.delete(io.fabric8.kubernetes.api.model.Secret.class, NS, "taken-broker-credentials");
    f.awaitReady(WorkerService.class, NS, "taken", true, "Ready");

    f.create(new io.fabric8.kubernetes.api.model.apps.DeploymentBuilder().withNewMetadata().withNamespace(NS)
        .withName("runner").endMetadata().withNewSpec().withReplicas(3).endSpec().build());
    f.create(workerService(NS, "runner", spec -> spec.setDeployment(Crs.deployment("example/runner:1", 1)), "go"));
    assertThat(f.awaitReady(WorkerService.class, NS, "runner", false, "Conflict").getMessage())
        .contains("Deployment runner already exists");
    assertThat(f.get(io.fabric8.kubernetes.api.model.apps.Deployment.class, NS, "runner").getSpec().getReplicas())
        .as("not overwritten").isEqualTo(3);
  }

  @Test
  void theOlderWorkerServiceKeepsAServiceName() {
    WorkerService older = f.create(workerService("team-a", "billing", "charge"));
    f.awaitReady(WorkerService.class, "team-a", "billing", true, "Ready");
    Instant created = Instant.parse(f.get(WorkerService.class, "team-a", "billing").getMetadata().getCreationTimestamp());
    // creationTimestamp has one-second resolution: make sure the second resource is visibly newer
    await().atMost(Duration.ofSeconds(3)).until(() -> Instant.now().isAfter(created.plusSeconds(1)));
    f.create(workerService("team-b", "billing-copy", s -> s.setService("billing"), "refund"));

    var conflict = f.awaitReady(WorkerService.class, "team-b", "billing-copy", false, "Conflict");
    assertThat(conflict.getMessage()).contains("service 'billing' is already provided by WorkerService team-a/billing");
    assertThat(broker.queues()).as("nothing declared for the newer one").doesNotContainKey("q.billing.refund");
    assertThat(f.condition(WorkerService.class, "team-a", "billing", "Ready").orElseThrow().getStatus()).isEqualTo("True");
    assertCalm(List.of(() -> f.get(WorkerService.class, "team-b", "billing-copy"),
        () -> f.get(WorkerService.class, "team-a", "billing")));

    f.delete(WorkerService.class, "team-a", older.getMetadata().getName());
    f.awaitReady(WorkerService.class, "team-b", "billing-copy", true, "Ready");
    await().atMost(WITHIN).untilAsserted(() -> assertThat(broker.queues()).containsKey("q.billing.refund"));
  }

  @Test
  void anImmutableArgumentChangeIsExplainedAndTheRestIsApplied() {
    f.create(workerService(NS, "ledger", "book"));
    f.awaitReady(WorkerService.class, NS, "ledger", true, "Ready");

    f.edit(WorkerService.class, NS, "ledger", ws -> {
      ws.getSpec().getQueue().setType(QueueKind.QUORUM);
      ws.getSpec().getCommands().add(new CommandSpec("post", null));
      return ws;
    });

    var topology = f.awaitCondition(WorkerService.class, NS, "ledger", ConditionTypes.TOPOLOGY_READY, false,
        "ImmutableQueueArguments");
    assertThat(topology.getMessage())
        .contains("queue q.ledger.book has x-queue-type=classic but the plan needs quorum")
        .contains("drain q.ledger.book and delete it")
        .contains("or set spec.queue.type back to classic");
    assertThat(f.condition(WorkerService.class, NS, "ledger", "Ready").orElseThrow().getReason())
        .isEqualTo("ImmutableQueueArguments");
    Map<String, Map<String, Object>> queues = broker.queues();
    assertThat(queues.get("q.ledger.post")).as("the rest is applied").containsEntry("x-queue-type", "quorum");
    assertThat(queues.get("q.ledger.book")).containsEntry("x-queue-type", "classic");
    assertCalm(List.of(() -> f.get(WorkerService.class, NS, "ledger")));
  }

  /** Over several resyncs: no status churn (the resource version stands still) and no errors in the log. */
  private static void assertCalm(List<Supplier<? extends HasMetadata>> resources) {
    List<String> versions = resources.stream().map(r -> r.get().getMetadata().getResourceVersion()).toList();
    logs.clear();
    await().during(CALM).atMost(CALM.plusSeconds(2)).until(() ->
        resources.stream().map(r -> r.get().getMetadata().getResourceVersion()).toList().equals(versions)
            && logs.failures().isEmpty());
  }
}
