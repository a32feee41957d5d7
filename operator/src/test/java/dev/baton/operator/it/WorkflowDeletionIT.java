package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.FakeRuntime.item;
import static dev.baton.operator.it.FakeRuntime.items;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.DeletionPolicy;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md#runtime-semantics: deleting a Workflow never strands its running instances. While the runtime (here
 * a fake) lists unfinished instances of it — or cannot be read — the operator keeps its finalizer, its orchestrator
 * queue and every binding, the current spec's and an older revision's, and Ready says why; once the runtime lists
 * none, the queues and the finalizer go as before. Fails on the code that removed them at once.
 */
class WorkflowDeletionIT {

  static final String NS = "leaving";
  static final Duration INTERVAL = Duration.ofMillis(300);
  static final String CURRENT = "payment.event.topic.ex -> q.orchestrator.orders : order.pay.success";
  static final String OLDER = "payment.event.topic.ex -> q.orchestrator.orders : order.debit.success";
  static FakeRuntime runtime;
  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    runtime = FakeRuntime.start();
    f = OperatorFixture.start("deletion", s -> s.toBuilder().runtimeUrl(runtime.url()).countsInterval(INTERVAL)
        .statusInterval(Duration.ZERO).build());
    broker = new BrokerState(f.management, f.vhost.name());
    f.create(workerService(NS, "payment", "pay", "refund"));
  }

  @AfterAll
  static void stop() {
    f.close();
    runtime.close();
  }

  @Test
  void theQueueAndItsBindingsStayWhileTheRuntimeListsInstancesAndGoOnceItListsNone() {
    runtime.answer(items(item(NS, "orders", 2, 5, 0, 0, 0)));
    runtime.answerRoutes(routes("orders"));
    Workflow wf = workflow(NS, "orders", "order", step("charge", "payment", "pay", "refund"));
    wf.getSpec().setDeletionPolicy(DeletionPolicy.Delete);
    f.create(wf);
    f.awaitReady(Workflow.class, NS, "orders", true, "Ready");
    await().atMost(WITHIN).untilAsserted(() -> assertThat(broker.bindings()).contains(CURRENT, OLDER));

    f.delete(Workflow.class, NS, "orders");

    Condition waiting = f.awaitReady(Workflow.class, NS, "orders", false, "WaitingForInstances");
    assertThat(waiting.getMessage()).contains("being deleted: waiting for 2 instance(s) to end")
        .contains("baton.dev/on-delete=fail-running");
    assertThat(f.condition(Workflow.class, NS, "orders", ConditionTypes.TOPOLOGY_READY).orElseThrow().getStatus())
        .as("the topology stays in place").isEqualTo("True");
    // Over several polls and more than one check of the finalizer, nothing goes.
    await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8)).untilAsserted(WorkflowDeletionIT::assertKept);
    assertThat(events("orders", "WaitingForInstances")).as("on the transition, not per pass").isNotEmpty()
        .allSatisfy(e -> assertThat(e.getType()).isEqualTo("Normal"))
        .allSatisfy(e -> assertThat(e.getMessage()).contains("waiting for 2 instance(s) to end"));

    runtime.answer(items(item(NS, "orders", 1, 6, 0, 0, 0)));
    await().atMost(WITHIN).untilAsserted(() -> assertThat(f.condition(Workflow.class, NS, "orders",
        ConditionTypes.READY).orElseThrow().getMessage()).contains("waiting for 1 instance(s) to end"));

    runtime.answer(items(item(NS, "orders", 0, 7, 0, 0, 0)));
    runtime.answerRoutes(items());
    await().atMost(WITHIN).until(() -> f.get(Workflow.class, NS, "orders") == null);
    assertThat(broker.queues()).doesNotContainKeys("q.orchestrator.orders", "q.dlx.orchestrator.orders");
    assertThat(broker.bindings()).noneMatch(b -> b.contains("q.orchestrator.orders"));
  }

  @Test
  void aRuntimeThatCannotBeReadKeepsEverythingUntilItAnswers() {
    runtime.answer(items(item(NS, "refunds", 1, 0, 0, 0, 0)));
    runtime.answerRoutes(routes("refunds"));
    f.create(workflow(NS, "refunds", "order", step("refund", "payment", "refund", null)));
    f.awaitReady(Workflow.class, NS, "refunds", true, "Ready");
    f.delete(Workflow.class, NS, "refunds");
    f.awaitReady(Workflow.class, NS, "refunds", false, "WaitingForInstances");

    runtime.down(true);
    Condition unknown = f.awaitReady(Workflow.class, NS, "refunds", false, "RuntimeUnavailable");
    assertThat(unknown.getMessage()).contains("cannot tell whether instances of it are unfinished")
        .contains("HTTP 503");
    // The instance may have ended meanwhile: the runtime's last answer does not count while it is down.
    runtime.answerRoutes(items());
    await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
      assertThat(f.get(Workflow.class, NS, "refunds")).isNotNull();
      assertThat(broker.queues()).containsKey("q.orchestrator.refunds");
    });
    assertThat(events("refunds", "RuntimeUnavailable")).isNotEmpty()
        .allSatisfy(e -> assertThat(e.getType()).isEqualTo("Warning"));

    runtime.down(false);
    await().atMost(WITHIN).until(() -> f.get(Workflow.class, NS, "refunds") == null);
    assertThat(broker.bindings()).noneMatch(b -> b.contains("q.orchestrator.refunds"));
  }

  @Test
  void aWorkflowWithoutUnfinishedInstancesGoesAtOnce() {
    f.create(workflow(NS, "idle", "order", step("charge", "payment", "pay", null)));
    f.awaitReady(Workflow.class, NS, "idle", true, "Ready");
    assertThat(broker.queues()).containsKey("q.orchestrator.idle");

    f.delete(Workflow.class, NS, "idle");

    await().atMost(WITHIN).until(() -> f.get(Workflow.class, NS, "idle") == null);
    assertThat(broker.bindings()).noneMatch(b -> b.contains("q.orchestrator.idle"));
    assertThat(events("idle", "WaitingForInstances")).isEmpty();
  }

  /** The runtime's routes listing the Workflow: an older revision's result key besides the current spec's. */
  static String routes(String workflow) {
    return "{\"items\":[{\"namespace\":\"" + NS + "\",\"workflow\":\"" + workflow + "\",\"revisions\":[1,2],"
        + "\"bindings\":[{\"exchange\":\"payment.event.topic.ex\",\"routingKey\":\"order.debit.success\"}]}]}";
  }

  static void assertKept() {
    assertThat(f.get(Workflow.class, NS, "orders")).as("held by its finalizer").isNotNull();
    assertThat(broker.queues()).containsKeys("q.orchestrator.orders", "q.dlx.orchestrator.orders");
    assertThat(broker.bindings()).contains(CURRENT, OLDER,
        "payment.event.topic.ex -> q.orchestrator.orders : order.refund.error");
  }

  static List<Event> events(String involved, String reason) {
    return f.client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> involved.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
        .toList();
  }
}
