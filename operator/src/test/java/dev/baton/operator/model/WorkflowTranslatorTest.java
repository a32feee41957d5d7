package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.api.validation.Validated;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.operator.status.Reason;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WorkflowTranslatorTest {

  static final ServiceDirectory SERVICES = ServiceDirectory.of(List.of(
      service("payment", "pay", "refund"), service("inventory", "reserve", "release")));

  static WorkerService service(String name, String... commands) {
    return WorkerServiceTranslatorTest.ws(name, s -> {
      for (String c : commands) {
        s.getCommands().add(new CommandSpec(c, null));
      }
    });
  }

  static StepSpec step(String name, String service, String command, String compensate) {
    StepSpec s = new StepSpec(name, service, command);
    s.setCompensate(compensate);
    return s;
  }

  static Workflow workflow(String name, Consumer<WorkflowSpec> more, StepSpec... steps) {
    Workflow wf = new Workflow();
    wf.getMetadata().setName(name);
    wf.getMetadata().setNamespace("shop");
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setSteps(new java.util.ArrayList<>(List.of(steps)));
    more.accept(spec);
    wf.setSpec(spec);
    return wf;
  }

  @Test
  void aWorkflowWhoseReferencesResolveBecomesItsModel() {
    StepSpec charge = step("charge", "payment", "pay", "refund");
    charge.setAction("charge");
    Validated<WorkflowModel> v = WorkflowTranslator.fromCrd(workflow("order-fulfilment", s -> {},
        step("reserve-stock", "inventory", "reserve", "release"), charge), SERVICES);
    assertThat(v.problems()).isEmpty();
    assertThat(v.value().steps()).containsExactly(
        new WorkflowModel.Step("reserve-stock", "inventory", "reserve", "release"),
        new WorkflowModel.Step("charge", "payment", "charge", "refund"));
  }

  static Stream<Arguments> badWorkflows() {
    return Stream.of(
        Arguments.of("unknown service", workflow("w", s -> {}, step("charge", "paymnt", "pay", null)),
            Reason.MISSING_SERVICE, "step 'charge' uses service 'paymnt', which no WorkerService provides"),
        Arguments.of("unknown command", workflow("w", s -> {}, step("charge", "payment", "charge", null)),
            Reason.MISSING_COMMAND, "step 'charge' uses command 'charge', which service 'payment' (WorkerService shop/payment) "
                + "does not accept; it accepts pay, refund"),
        Arguments.of("unknown compensate command", workflow("w", s -> {}, step("charge", "payment", "pay", "undo")),
            Reason.MISSING_COMMAND, "step 'charge' uses compensate command 'undo'"),
        Arguments.of("duplicate step names", workflow("w", s -> {}, step("a", "payment", "pay", null),
            step("a", "payment", "refund", null)), Reason.INVALID_SPEC,
            "spec.steps[1].name (step 'a'): step name 'a' is already used by spec.steps[0]"),
        Arguments.of("bad timeout", workflow("w", s -> {}, withTimeout(step("a", "payment", "pay", null), "5 minutes")),
            Reason.INVALID_SPEC, "spec.steps[0].timeout (step 'a'): '5 minutes' is not a duration"),
        Arguments.of("dotted entity", workflow("w", s -> s.setEntity("order.v2"), step("a", "payment", "pay", null)),
            Reason.INVALID_SPEC, "spec.entity 'order.v2' is not a valid entity"),
        Arguments.of("no steps", workflow("w", s -> {}), Reason.INVALID_SPEC, "spec.steps is empty"),
        Arguments.of("dotted step service", workflow("w", s -> {}, step("a", "pay.ment", "pay", null)),
            Reason.INVALID_SPEC, "spec.steps[0].service (step 'a'): 'pay.ment' is not a valid name"),
        Arguments.of("name too long for a queue", workflow("w".repeat(240), s -> {}, step("a", "payment", "pay", null)),
            Reason.INVALID_SPEC, "metadata.name is too long"));
  }

  static Workflow branches(StepSpec... branchSteps) {
    StepSpec group = new StepSpec();
    group.setName("checks");
    group.setParallel(java.util.Arrays.stream(branchSteps).map(st -> new BranchSpec(List.of(st))).toList());
    return workflow("w", s -> {}, group);
  }

  @Test
  void theReferencesOfNestedTasksAreCheckedAndTheirServicesListed() {
    Workflow wf = branches(step("charge", "payment", "pay", "undo"), step("hold", "inventory", "reserve", "release"));
    Validated<WorkflowModel> v = WorkflowTranslator.fromCrd(wf, SERVICES);
    assertThat(Reason.of(v)).isEqualTo(Reason.MISSING_COMMAND);
    assertThat(v.message()).contains("step 'charge' uses compensate command 'undo'");
    assertThat(WorkflowTranslator.referencedServices(wf)).containsExactly("payment", "inventory");

    Validated<WorkflowModel> ok = WorkflowTranslator.fromCrd(
        branches(step("charge", "payment", "pay", "refund"), step("hold", "inventory", "reserve", "release")), SERVICES);
    assertThat(ok.value().steps()).extracting(WorkflowModel.Step::name).containsExactly("charge", "hold");
  }

  static StepSpec withTimeout(StepSpec step, String timeout) {
    step.setTimeout(timeout);
    return step;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badWorkflows")
  void badWorkflowsBecomeProblemsNamingTheStepAndTheReference(String what, Workflow wf, Reason reason, String message) {
    Validated<WorkflowModel> v = WorkflowTranslator.fromCrd(wf, SERVICES);
    assertThat(v.isValid()).isFalse();
    assertThat(Reason.of(v)).isEqualTo(reason);
    assertThat(v.message()).contains(message);
  }

  static StepSpec child(String name, String workflow) {
    StepSpec s = new StepSpec();
    s.setName(name);
    s.setWorkflow(workflow);
    return s;
  }

  @Test
  void aChildWorkflowStepNeedsItsWorkflowInTheSameNamespace() {
    Workflow order = workflow("order", s -> {}, step("charge", "payment", "pay", null), child("invoice", "invoicing"));
    Workflow invoicing = workflow("invoicing", s -> {}, step("bill", "payment", "pay", null));
    Workflow elsewhere = workflow("invoicing", s -> {}, step("bill", "payment", "pay", null));
    elsewhere.getMetadata().setNamespace("accounts");

    Validated<WorkflowModel> missing = WorkflowTranslator.fromCrd(order, SERVICES,
        WorkflowDirectory.of(List.of(order, elsewhere)));
    assertThat(Reason.of(missing)).isEqualTo(Reason.MISSING_WORKFLOW);
    assertThat(missing.message()).contains("step 'invoice' starts Workflow 'invoicing', which does not exist in"
        + " namespace shop");

    Validated<WorkflowModel> ok = WorkflowTranslator.fromCrd(order, SERVICES,
        WorkflowDirectory.of(List.of(order, invoicing)));
    assertThat(ok.problems()).isEmpty();
    assertThat(ok.value().steps()).extracting(WorkflowModel.Step::name).containsExactly("charge");
  }

  @Test
  void aWorkflowThatStartsItselfDirectlyOrThroughOthersIsRefusedWithTheWayRound() {
    Workflow order = workflow("order", s -> {}, child("invoice", "invoicing"));
    Workflow invoicing = workflow("invoicing", s -> {}, child("audit", "auditing"));
    Workflow auditing = workflow("auditing", s -> {}, child("again", "order"));
    WorkflowDirectory all = WorkflowDirectory.of(List.of(order, invoicing, auditing));

    Validated<WorkflowModel> v = WorkflowTranslator.fromCrd(order, SERVICES, all);
    assertThat(Reason.of(v)).isEqualTo(Reason.INVALID_SPEC);
    assertThat(v.message()).contains("step 'invoice' starts Workflow 'invoicing', which leads back to this one"
        + " (order -> invoicing -> auditing -> order)");
    assertThat(WorkflowTranslator.fromCrd(auditing, SERVICES, all).message())
        .contains("(auditing -> order -> invoicing -> auditing)");

    Workflow recursive = workflow("loop", s -> {}, child("self", "loop"));
    assertThat(WorkflowTranslator.fromCrd(recursive, SERVICES).message()).contains("(loop -> loop)");

    Workflow leaf = workflow("auditing", s -> {}, step("a", "payment", "pay", null));
    assertThat(WorkflowTranslator.fromCrd(order, SERVICES, WorkflowDirectory.of(List.of(order, invoicing, leaf)))
        .problems()).isEmpty();
  }

  @Test
  void aServiceInConflictIsProvidedByTheOlderResourceOnly() {
    WorkerService older = service("payment", "pay");
    older.getMetadata().setCreationTimestamp("2026-01-01T00:00:00Z");
    WorkerService newer = WorkerServiceTranslatorTest.ws("payment", s -> s.getCommands().add(new CommandSpec("charge", null)));
    newer.getMetadata().setNamespace("other");
    newer.getMetadata().setCreationTimestamp("2026-02-01T00:00:00Z");
    ServiceDirectory directory = ServiceDirectory.of(List.of(newer, older));

    assertThat(directory.lookup("payment")).hasValueSatisfying(p -> {
      assertThat(p.resource()).isEqualTo("shop/payment");
      assertThat(p.commands()).containsExactly("pay");
    });
  }
}
