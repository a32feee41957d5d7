package dev.baton.operator.it;

import static dev.baton.operator.it.BrokerState.binding;
import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Workflow names what is missing and becomes ready by itself when it appears. The resync is long here, so it is
 * the WorkerService's own event that reconciles the Workflow.
 */
class WorkflowReferencesIT {

  static final String NS = "flows";
  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("flows", s -> s.withResync(Duration.ofSeconds(60)));
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void aMissingServiceIsNamedAndTheWorkflowBecomesReadyWhenItAppears() {
    f.create(workerService(NS, "payment", "pay", "refund"));
    f.create(workflow(NS, "fulfil", "order",
        step("charge", "payment", "pay", "refund"), step("ship", "shipping", "ship", null)));

    var missing = f.awaitReady(Workflow.class, NS, "fulfil", false, "MissingService");
    assertThat(missing.getMessage()).isEqualTo("step 'ship' uses service 'shipping', which no WorkerService provides: "
        + "create a WorkerService with that service name or correct the step");
    assertThat(broker.queues()).as("nothing half-applied").doesNotContainKey("q.orchestrator.fulfil");

    f.create(workerService(NS, "shipping", "send"));
    var wrongCommand = f.awaitReady(Workflow.class, NS, "fulfil", false, "MissingCommand");
    assertThat(wrongCommand.getMessage()).contains("step 'ship' uses command 'ship', which service 'shipping' "
        + "(WorkerService flows/shipping) does not accept; it accepts send");

    f.edit(WorkerService.class, NS, "shipping", ws -> {
      ws.getSpec().setCommands(new ArrayList<>(List.of(new CommandSpec("ship", null))));
      return ws;
    });
    f.awaitReady(Workflow.class, NS, "fulfil", true, "Ready");
    assertThat(broker.queues()).containsKeys("q.orchestrator.fulfil", "q.dlx.orchestrator.fulfil");
    assertThat(broker.bindings()).contains(
        binding("shipping.event.topic.ex", "q.orchestrator.fulfil", "order.ship.success"),
        binding("payment.event.topic.ex", "q.orchestrator.fulfil", "order.refund.error"));
  }

  static dev.baton.api.v1alpha1.StepSpec child(String name, String workflow) {
    dev.baton.api.v1alpha1.StepSpec s = new dev.baton.api.v1alpha1.StepSpec();
    s.setName(name);
    s.setWorkflow(workflow);
    return s;
  }

  @Test
  void aMissingChildWorkflowIsNamedAndTheParentBecomesReadyWhenItAppearsButNotWhenItLeadsBack() {
    f.create(workerService(NS, "billing", "issue"));
    f.create(workflow(NS, "checkout", "order", child("invoice", "invoicing")));

    var missing = f.awaitReady(Workflow.class, NS, "checkout", false, "MissingWorkflow");
    assertThat(missing.getMessage()).isEqualTo("step 'invoice' starts Workflow 'invoicing', which does not exist in "
        + "namespace flows: create it or correct the step");
    // kstatus: the child may come in the same sync, so it is in progress, not stalled.
    assertThat(f.condition(Workflow.class, NS, "checkout", "Reconciling").orElseThrow().getStatus()).isEqualTo("True");
    assertThat(f.condition(Workflow.class, NS, "checkout", "Stalled")).isEmpty();

    // The child's own event reconciles the parent (the resync is a minute away).
    f.create(workflow(NS, "invoicing", "invoice", step("issue", "billing", "issue", null)));
    f.awaitReady(Workflow.class, NS, "checkout", true, "Ready");

    // A child that starts its parent again: both refuse the way round, and neither is declared anew.
    f.edit(Workflow.class, NS, "invoicing", wf -> {
      wf.getSpec().getSteps().add(child("again", "checkout"));
      return wf;
    });
    var cycle = f.awaitReady(Workflow.class, NS, "invoicing", false, "InvalidSpec");
    assertThat(cycle.getMessage()).contains("step 'again' starts Workflow 'checkout', which leads back to this one"
        + " (invoicing -> checkout -> invoicing)");
    var parent = f.awaitReady(Workflow.class, NS, "checkout", false, "InvalidSpec");
    assertThat(parent.getMessage()).contains("(checkout -> invoicing -> checkout)");
    // Only a person can undo a cycle: kstatus's Stalled, with the reason, so a GitOps sync fails at once.
    var stalled = f.condition(Workflow.class, NS, "checkout", "Stalled").orElseThrow();
    assertThat(stalled.getStatus()).isEqualTo("True");
    assertThat(stalled.getReason()).isEqualTo("InvalidSpec");
    assertThat(f.condition(Workflow.class, NS, "checkout", "Reconciling")).isEmpty();
  }

  @Test
  void aWorkflowNameIsUniqueAcrossNamespaces() {
    f.create(workerService(NS, "mailer", "send"));
    f.create(workflow(NS, "notify", "customer", step("mail", "mailer", "send", null)));
    f.awaitReady(Workflow.class, NS, "notify", true, "Ready");

    f.create(workflow("elsewhere", "notify", "customer", step("mail", "mailer", "send", null)));
    var conflict = f.awaitReady(Workflow.class, "elsewhere", "notify", false, "Conflict");
    assertThat(conflict.getMessage()).contains("queue q.orchestrator.notify already belongs to Workflow flows/notify");
    assertThat(f.condition(Workflow.class, NS, "notify", "Ready").orElseThrow().getStatus()).isEqualTo("True");
  }
}
