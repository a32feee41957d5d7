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
import org.junit.jupiter.api.Test;

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

  @Test
  void retainKeepsQueuesHoldingMessagesAndRemovesTheRest() {
    f.create(workerService(NS, "keep", "a", "b"));
    f.awaitCondition(WorkerService.class, NS, "keep", ConditionTypes.TOPOLOGY_READY, true, "Declared");
    Amqp.publish(f.vhost, "keep.command.topic.ex", "service.keep.a");
    await().atMost(WITHIN).until(() -> Amqp.ready(f.vhost, "q.keep.a") == 1);

    f.delete(WorkerService.class, NS, "keep");

    await().atMost(WITHIN).until(() -> f.get(WorkerService.class, NS, "keep") == null);
    assertThat(broker.queues().keySet().stream().filter(q -> q.contains(".keep.")))
        .as("the other tests of this class share the vhost").containsExactly("q.keep.a");
    assertThat(Amqp.ready(f.vhost, "q.keep.a")).isEqualTo(1);
    assertThat(broker.exchanges()).as("kept: they route the retained messages")
        .containsKeys("keep.command.topic.ex", "keep.retry.direct.ex");
    assertThat(f.management.getUser(f.username("keep"))).isNull();
    assertThat(f.get(Secret.class, NS, "keep-broker-credentials")).isNull();
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
}
