package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import org.junit.jupiter.api.Test;

/**
 * A resource with fields this operator does not know (a newer CRD during an upgrade or a rollback; the mock API server,
 * like an API server that does not prune, stores them as written) reconciles Ready, the change that came with them is
 * applied, the operator goes on reconciling what comes next, and each unknown field is said once.
 */
class UnknownFieldsIT {

  static final String NS = "newer";

  @Test
  void resourcesWithUnknownFieldsReconcileReadyAndTheOperatorGoesOn() {
    try (LogCapture logs = new LogCapture(); OperatorFixture f = OperatorFixture.start("unknown")) {
      BrokerState broker = new BrokerState(f.management, f.vhost.name());
      f.create(workerService(NS, "payment", "pay"));
      f.create(workflow(NS, "checkout", "order", step("charge", "payment", "pay", null)));
      f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");

      // what kubectl patch --type=json sends: unknown fields at two levels, with a known change beside them
      f.client.resources(WorkerService.class).inNamespace(NS).withName("payment").patch(PatchContext.of(PatchType.JSON), """
          [{"op": "add", "path": "/spec/unknownField", "value": 1},
           {"op": "add", "path": "/spec/commands/0/priority", "value": "high"},
           {"op": "add", "path": "/spec/commands/-", "value": {"name": "refund", "priority": "low"}}]
          """);
      f.client.resources(Workflow.class).inNamespace(NS).withName("checkout").patch(PatchContext.of(PatchType.JSON), """
          [{"op": "add", "path": "/spec/steps/0/hint", "value": "fast"}]
          """);

      await().atMost(WITHIN).untilAsserted(() -> assertThat(broker.queues()).containsKey("q.payment.refund"));
      f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");
      f.awaitReady(Workflow.class, NS, "checkout", true, "Ready");
      // the informers still run: a resource created afterwards is reconciled too
      f.create(workerService(NS, "shipping", "ship"));
      f.awaitReady(WorkerService.class, NS, "shipping", true, "Ready");

      assertThat(logs.messages("field spec.unknownField is unknown")).as("said once, however often it is read")
          .containsExactly("WorkerService newer/payment: field spec.unknownField is unknown to this version of Baton and"
              + " is ignored (a newer CRD during an upgrade or a rollback, or a client wrote it); said once per kind and"
              + " field");
      assertThat(logs.messages("field spec.commands[*].priority is unknown")).hasSize(1);
      assertThat(logs.messages("field spec.steps[*].hint is unknown")).hasSize(1);
      assertThat(logs.failures()).isEmpty();
    }
  }

  /**
   * A value of an enum field the operator does not know (a newer CRD's) used to fail the informer's read: now that
   * resource is Stalled with the field and the value, and the others go on.
   */
  @Test
  void anEnumValueOfANewerCrdStallsItsResourceNamingTheFieldAndTheValueAndTheOperatorGoesOn() {
    try (LogCapture logs = new LogCapture(); OperatorFixture f = OperatorFixture.start("unknown-enum")) {
      f.create(workerService(NS, "payment", "pay"));
      f.create(workflow(NS, "checkout", "order", step("charge", "payment", "pay", null)));
      f.awaitReady(Workflow.class, NS, "checkout", true, "Ready");

      f.client.resources(WorkerService.class).inNamespace(NS).withName("payment").patch(PatchContext.of(PatchType.JSON), """
          [{"op": "add", "path": "/spec/deletionPolicy", "value": "Archive"}]
          """);
      f.client.resources(Workflow.class).inNamespace(NS).withName("checkout").patch(PatchContext.of(PatchType.JSON), """
          [{"op": "add", "path": "/spec/steps/0/onTimeout", "value": "Escalate"}]
          """);

      assertThat(f.awaitReady(WorkerService.class, NS, "payment", false, "InvalidSpec").getMessage())
          .contains("spec.deletionPolicy: 'Archive' is not a value this version of Baton knows (Retain, Delete)");
      assertThat(f.awaitReady(Workflow.class, NS, "checkout", false, "InvalidSpec").getMessage())
          .contains("spec.steps[0].onTimeout: 'Escalate' is not a value this version of Baton knows (Fail, Redispatch)");
      assertThat(f.condition(Workflow.class, NS, "checkout", ConditionTypes.STALLED)).hasValueSatisfying(c ->
          assertThat(c.getStatus()).isEqualTo("True"));
      // the informers still run
      f.create(workerService(NS, "shipping", "ship"));
      f.awaitReady(WorkerService.class, NS, "shipping", true, "Ready");
      assertThat(logs.failures()).isEmpty();
    }
  }
}
