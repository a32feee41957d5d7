package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.DeletionPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import dev.baton.api.v1alpha1.QueueKind;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Deleting a resource cleans up per its deletionPolicy; what is already gone never blocks the deletion. */
class DeletionPolicyIT {

  static final String NS = "cleanup";
  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("delete");
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void retainKeepsQueuesHoldingMessagesUnboundAndRemovesTheRest(QueueKind type) {
    String svc = "keep-" + type.name().toLowerCase(Locale.ROOT);
    f.create(workerService(NS, svc, spec -> spec.getQueue().setType(type), "a", "b"));
    f.awaitCondition(WorkerService.class, NS, svc, ConditionTypes.TOPOLOGY_READY, true, "Declared");
    Amqp.publish(f.vhost, svc + ".command.topic.ex", "service." + svc + ".a");
    await().atMost(WITHIN).until(() -> Amqp.ready(f.vhost, "q." + svc + ".a") == 1);

    f.delete(WorkerService.class, NS, svc);

    // Empty quorum queues go a settling time after they were unbound; the finalizer waits for them.
    await().atMost(WITHIN.multipliedBy(2)).until(() -> f.get(WorkerService.class, NS, svc) == null);
    assertThat(broker.queues().keySet().stream().filter(q -> q.contains("." + svc + ".")))
        .as("the other tests of this class share the vhost").containsExactly("q." + svc + ".a");
    assertThat(Amqp.ready(f.vhost, "q." + svc + ".a")).isEqualTo(1);
    assertThat(broker.bindings()).as("what Retain keeps no longer fills up: commands sent now are unroutable")
        .noneMatch(b -> b.contains("-> q." + svc + ".a :"));
    assertThat(broker.exchanges()).as("kept: they route the retained messages")
        .containsKeys(svc + ".command.topic.ex", svc + ".retry.direct.ex");
    assertThat(f.management.getUser(f.username(svc))).isNull();
    assertThat(f.get(Secret.class, NS, svc + "-broker-credentials")).isNull();
  }

  @Test
  void deleteRemovesEverythingEvenWhatIsAlreadyGone() {
    f.create(workerService(NS, "drop", spec -> {
      spec.setDeletionPolicy(DeletionPolicy.Delete);
      spec.setDeployment(deployment("example/drop:1", 1));
    }, "a", "b"));
    f.awaitCondition(WorkerService.class, NS, "drop", ConditionTypes.TOPOLOGY_READY, true, "Declared");
    await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "drop") != null);
    Amqp.publish(f.vhost, "drop.command.topic.ex", "service.drop.a");
    f.management.deleteQueue(f.vhost.name(), "q.drop.b");
    f.management.deleteUser(f.username("drop"));

    f.delete(WorkerService.class, NS, "drop");

    await().atMost(WITHIN).until(() -> f.get(WorkerService.class, NS, "drop") == null);
    assertThat(broker.queues().keySet()).noneMatch(q -> q.contains(".drop."));
    assertThat(broker.exchanges().keySet()).noneMatch(e -> e.startsWith("drop."));
    assertThat(f.management.getUser(f.username("drop"))).isNull();
    assertThat(f.get(Secret.class, NS, "drop-broker-credentials")).isNull();
    assertThat(f.get(Deployment.class, NS, "drop")).isNull();
  }

  @Test
  void aWorkflowsQueuesGoWithIt() {
    f.create(workerService(NS, "stock", "reserve"));
    Workflow wf = workflow(NS, "restock", "item", step("reserve", "stock", "reserve", null));
    wf.getSpec().setDeletionPolicy(DeletionPolicy.Delete);
    f.create(wf);
    f.awaitReady(Workflow.class, NS, "restock", true, "Ready");
    assertThat(broker.queues()).containsKeys("q.orchestrator.restock", "q.dlx.orchestrator.restock");

    f.delete(Workflow.class, NS, "restock");

    await().atMost(WITHIN).until(() -> f.get(Workflow.class, NS, "restock") == null);
    assertThat(broker.queues()).doesNotContainKeys("q.orchestrator.restock", "q.dlx.orchestrator.restock");
    assertThat(broker.exchanges()).as("the service's exchanges are not the Workflow's").containsKey("stock.event.topic.ex");
  }

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void aRetainedOrchestratorQueueNoLongerCollectsOtherWorkflowsEvents(QueueKind type) {
    String name = "kept-" + type.name().toLowerCase(Locale.ROOT);
    f.create(workerService(NS, "ship-" + name, "ship"));
    Workflow wf = workflow(NS, name, "parcel", step("ship", "ship-" + name, "ship", null));
    wf.getSpec().setQueueType(type);
    f.create(wf);
    f.awaitReady(Workflow.class, NS, name, true, "Ready");
    Amqp.publish(f.vhost, "ship-" + name + ".event.topic.ex", "parcel.ship.success");
    await().atMost(WITHIN).until(() -> Amqp.ready(f.vhost, "q.orchestrator." + name) == 1);

    f.delete(Workflow.class, NS, name);

    await().atMost(WITHIN.multipliedBy(2)).until(() -> f.get(Workflow.class, NS, name) == null);
    assertThat(broker.queues()).as("kept: it holds an event").containsKey("q.orchestrator." + name)
        .doesNotContainKey("q.dlx.orchestrator." + name);
    assertThat(broker.bindings()).as("unbound: another Workflow with the same step would fill it without bound")
        .noneMatch(b -> b.contains("-> q.orchestrator." + name + " :"));
  }
}
