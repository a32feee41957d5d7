package dev.baton.runtime.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.EventResult;
import dev.baton.runtime.core.InstanceState.ChildState;
import dev.baton.workflow.WorkflowDefinition;
import dev.baton.workflow.WorkflowParser;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The transitions of a child workflow step, in every way its child can end, and of an instance compensated after it
 * succeeded (what a parent asks of its child when it undoes the step).
 *
 * <p>ORDER: reserve (compensate: release); invoice = child workflow invoicing with input {order: input.id}, timeout
 * 1h; ship. Children are set by hand, as the runtime would load them.
 */
class ChildTransitionsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static final WorkflowDefinition ORDER = yaml("""
      {entity: order, steps: [
        {name: reserve, service: inv, command: reserve, compensate: release},
        {name: invoice, workflow: invoicing, input: {order: "input.id"}, timeout: 1h},
        {name: ship, service: ship, command: ship}]}
      """);

  static WorkflowDefinition yaml(String spec) {
    try {
      return WorkflowParser.runnable("default", "order", 1, YAML.readValue(spec, WorkflowSpec.class));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static final UUID CHILD = UUID.randomUUID();

  /** An order instance whose reserve succeeded: its invoice step has started its child. */
  static SimulatedInstance invoicing() {
    SimulatedInstance i = new SimulatedInstance(ORDER, "{\"id\": \"o-7\", \"items\": 2}");
    i.succeed("reserve", "reserve");
    return i;
  }

  static void childIs(SimulatedInstance i, InstanceStatus status, String outputs, String reason) {
    i.children.put("invoice", new ChildState(CHILD, status, i.latest("invoice").attempt(),
        outputs == null ? null : Json.read(outputs), reason));
  }

  @Test
  void aChildStepStartsItsChildWithTheMappedInputAndWaitsForIt() {
    SimulatedInstance i = invoicing();

    assertThat(i.latest("invoice").kind()).isEqualTo("workflow");
    assertThat(i.latest("invoice").isRunning()).isTrue();
    assertThat(i.last.childStarts()).hasSize(1);
    Transition.ChildStart start = i.last.childStarts().get(0);
    assertThat(start.workflow()).isEqualTo("invoicing");
    assertThat(start.row().name()).isEqualTo("invoice");
    assertThat(start.input()).isEqualTo(Json.read("{\"order\": \"o-7\"}"));
    assertThat(i.last.dispatches()).isEmpty();

    childIs(i, InstanceStatus.RUNNING, null, null);
    assertThat(i.decide(new Stimulus.ChildrenChanged()).rows()).isEmpty();
  }

  @Test
  void aChildThatSucceededEndsTheStepWithItsOutputsAndTheParentGoesOn() {
    SimulatedInstance i = invoicing();
    childIs(i, InstanceStatus.SUCCEEDED, "{\"issue\": {\"invoice\": \"INV-1\"}}", null);

    i.decide(new Stimulus.ChildrenChanged());

    assertThat(i.latest("invoice").status()).isEqualTo(StepStatus.SUCCEEDED);
    assertThat(i.latest("invoice").output()).isEqualTo(Json.read("{\"issue\": {\"invoice\": \"INV-1\"}}"));
    assertThat(i.sent()).containsExactly("ship ship");
    assertThat(i.inputOf("ship").get("issue").get("invoice").asText()).isEqualTo("INV-1");
  }

  @Test
  void aChildThatEndedOtherwiseFailsTheStepWithItsStatusAndReasonAndTheParentCompensates() {
    for (InstanceStatus ended : new InstanceStatus[] {InstanceStatus.FAILED, InstanceStatus.COMPENSATED,
        InstanceStatus.CANCELLED}) {
      SimulatedInstance i = invoicing();
      childIs(i, ended, null, "tax service down");

      i.decide(new Stimulus.ChildrenChanged());

      assertThat(i.latest("invoice").status()).as(ended.name()).isEqualTo(StepStatus.FAILED);
      assertThat(i.latest("invoice").errorCode()).isEqualTo(StateMachine.CHILD_FAILED);
      assertThat(i.latest("invoice").errorReason()).contains(CHILD.toString()).contains("ended " + ended)
          .contains("tax service down");
      assertThat(i.last.lastError().step()).isEqualTo("invoice");
      assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATING);
      assertThat(i.sent()).containsExactly("reserve/compensate release");
    }
  }

  @Test
  void anEndForAnEarlierAttemptDoesNotEndARetriedStep() {
    SimulatedInstance i = invoicing();
    childIs(i, InstanceStatus.FAILED, null, "first try");
    i.decide(new Stimulus.ChildrenChanged());
    i.succeed("reserve", "release");
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATED);

    // A Stop workflow to retry: the retried step waits although its child is still FAILED from attempt 1.
    WorkflowDefinition stop = yaml("""
        {entity: order, onFailure: Stop, steps: [{name: invoice, workflow: invoicing}]}
        """);
    SimulatedInstance s = new SimulatedInstance(stop, "{}");
    s.children.put("invoice", new ChildState(CHILD, InstanceStatus.FAILED, 1, null, "first try"));
    s.decide(new Stimulus.ChildrenChanged());
    assertThat(s.status).isEqualTo(InstanceStatus.FAILED);

    s.decide(new Stimulus.Retry());
    assertThat(s.latest("invoice").attempt()).isEqualTo(2);
    assertThat(s.latest("invoice").isRunning()).isTrue();
    assertThat(s.last.childStarts()).extracting(c -> c.row().attempt()).containsExactly(2);

    s.children.put("invoice", new ChildState(CHILD, InstanceStatus.SUCCEEDED, 2, Json.read("{}"), null));
    s.decide(new Stimulus.ChildrenChanged());
    assertThat(s.status).isEqualTo(InstanceStatus.SUCCEEDED);
  }

  @Test
  void aChildThatCouldNotStartFailsTheStepWithTheReason() {
    SimulatedInstance i = invoicing();

    i.decide(new Stimulus.ChildRefused("invoice", "Workflow default/invoicing does not exist"));

    assertThat(i.latest("invoice").errorCode()).isEqualTo(StateMachine.CHILD_UNAVAILABLE);
    assertThat(i.latest("invoice").errorReason()).contains("does not exist");
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATING);
  }

  @Test
  void theStepsTimeoutFailsItAndItsChildIsLeftToTheRuntimeToCancel() {
    SimulatedInstance i = invoicing();
    i.rows.replaceAll(r -> r.name().equals("invoice") ? new StepState(r.id(), r.name(), r.kind(), r.parent(),
        r.attempt(), r.status(), r.action(), r.commandMessageId(), r.dispatches(), null, true, null, null, null,
        null, null, null, null, null, null, null, 0) : r);

    i.decide(new Stimulus.TimersDue());

    assertThat(i.latest("invoice").status()).isEqualTo(StepStatus.TIMED_OUT);
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATING);
  }

  @Test
  void theInstancesDeadlineTimesOutAChildStepInFlightAndItsOlderStepsAreUndoneOnceTheChildHasUndoneItsOwn() {
    SimulatedInstance i = invoicing();
    childIs(i, InstanceStatus.RUNNING, null, null);
    i.pastDeadline = true;

    i.decide(new Stimulus.InstanceTimedOut());

    assertThat(i.latest("invoice").status()).isEqualTo(StepStatus.TIMED_OUT);
    assertThat(i.latest("invoice").errorCode()).isEqualTo(StateMachine.INSTANCE_TIMEOUT);
    // The child, cancelled after the commit, undoes its steps, newer than reserve: reserve waits for it.
    assertThat(i.sent()).isEmpty();
    childIs(i, InstanceStatus.COMPENSATING, null, null);
    assertThat(i.decide(new Stimulus.ChildrenChanged()).dispatches()).isEmpty();

    childIs(i, InstanceStatus.CANCELLED, null, null);
    i.decide(new Stimulus.ChildrenChanged());
    assertThat(i.sent()).containsExactly("reserve/compensate release");
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATING);
  }

  @Test
  void aCancelThatCompensatesUndoesOlderStepsOnlyOnceTheChildInFlightHasEnded() {
    SimulatedInstance i = invoicing();
    childIs(i, InstanceStatus.RUNNING, null, null);

    i.decide(new Stimulus.Cancel(true));
    assertThat(i.latest("invoice").status()).isEqualTo(StepStatus.CANCELLED);
    assertThat(i.sent()).isEmpty();

    childIs(i, InstanceStatus.CANCELLED, null, null);
    i.decide(new Stimulus.ChildrenChanged());
    assertThat(i.sent()).containsExactly("reserve/compensate release");
    i.succeed("reserve", "release");
    assertThat(i.status).isEqualTo(InstanceStatus.CANCELLED);
  }

  @Test
  void aCancelEndsTheStepInFlightAndAFailureElsewhereDoesNotAwaitTheChild() {
    SimulatedInstance i = invoicing();
    i.decide(new Stimulus.Cancel(false));
    assertThat(i.latest("invoice").status()).isEqualTo(StepStatus.CANCELLED);
    assertThat(i.status).isEqualTo(InstanceStatus.CANCELLED);

    WorkflowDefinition both = yaml("""
        {entity: order, steps: [{name: p, parallel: [
          {steps: [{name: invoice, workflow: invoicing}]},
          {steps: [{name: pay, service: pay, command: pay, compensate: refund}]}]}]}
        """);
    SimulatedInstance b = new SimulatedInstance(both, "{}");
    b.fail("pay", "pay");
    assertThat(b.latest("invoice").status()).isEqualTo(StepStatus.CANCELLED);
    assertThat(b.status).isEqualTo(InstanceStatus.FAILED); // pay refused: nothing took effect to undo
  }

  @Test
  void compensatingASucceededChildStepWaitsForTheChildToBeCompensated() {
    SimulatedInstance i = invoicing();
    childIs(i, InstanceStatus.SUCCEEDED, "{\"invoice\": \"INV-1\"}", null);
    i.decide(new Stimulus.ChildrenChanged());
    i.answer("ship", "ship", EventResult.FAILED, null);

    // Newest first: the child step is undone before reserve; its compensation row waits for the child.
    assertThat(i.latest("invoice/compensate").kind()).isEqualTo("workflow");
    assertThat(i.latest("invoice/compensate").isRunning()).isTrue();
    assertThat(i.sent()).isEmpty();

    childIs(i, InstanceStatus.COMPENSATING, null, null);
    assertThat(i.decide(new Stimulus.ChildrenChanged()).rows()).isEmpty();

    childIs(i, InstanceStatus.COMPENSATED, null, null);
    i.decide(new Stimulus.ChildrenChanged());
    assertThat(i.latest("invoice/compensate").status()).isEqualTo(StepStatus.SUCCEEDED);
    assertThat(i.sent()).containsExactly("reserve/compensate release");
    i.succeed("reserve", "release");
    assertThat(i.status).isEqualTo(InstanceStatus.COMPENSATED);
  }

  @Test
  void aChildWhoseCompensationFailedFailsTheParentsCompensation() {
    SimulatedInstance i = invoicing();
    childIs(i, InstanceStatus.SUCCEEDED, "{}", null);
    i.decide(new Stimulus.ChildrenChanged());
    i.answer("ship", "ship", EventResult.FAILED, null);

    childIs(i, InstanceStatus.FAILED, null, "void refused");
    i.decide(new Stimulus.ChildrenChanged());

    assertThat(i.latest("invoice/compensate").status()).isEqualTo(StepStatus.FAILED);
    assertThat(i.latest("invoice/compensate").errorReason()).contains("void refused");
    assertThat(i.status).isEqualTo(InstanceStatus.FAILED);
  }

  @Test
  void aSucceededInstanceAskedToCompensateUndoesItsStepsNewestFirstAndEndsCompensated() {
    WorkflowDefinition invoicing = yaml("""
        {entity: invoice, steps: [
          {name: draft, service: inv, command: draft, compensate: discard},
          {name: issue, service: inv, command: issue, compensate: void}]}
        """);
    SimulatedInstance child = new SimulatedInstance(invoicing, "{}");
    child.succeed("draft", "draft");
    child.succeed("issue", "issue");
    assertThat(child.status).isEqualTo(InstanceStatus.SUCCEEDED);

    child.decide(new Stimulus.Compensate());
    assertThat(child.status).isEqualTo(InstanceStatus.COMPENSATING);
    assertThat(child.sent()).containsExactly("issue/compensate void");
    child.succeed("issue", "void");
    child.succeed("draft", "discard");
    assertThat(child.status).isEqualTo(InstanceStatus.COMPENSATED);

    assertThat(child.decide(new Stimulus.Compensate()).kind()).isEqualTo(Transition.Kind.REFUSED);
  }
}
