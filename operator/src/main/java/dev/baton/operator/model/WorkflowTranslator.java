package dev.baton.operator.model;

import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.ProblemKind;
import dev.baton.api.validation.Validated;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.workflow.Step;
import dev.baton.workflow.WorkflowDefinition;
import dev.baton.workflow.WorkflowSpecs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Workflow (+ the services of the vhost) → {@link WorkflowModel}, or the problems a person must fix. The spec itself
 * is checked by the one parser the runtime uses too ({@link dev.baton.workflow.WorkflowParser}); this adds
 * what only the operator can see: that every task, nested ones included, names a service some WorkerService provides
 * and commands (forward and compensation) it accepts, and that every child workflow step names a Workflow of the
 * namespace without leading back to this one. Pure.
 */
public final class WorkflowTranslator {

  private WorkflowTranslator() {}

  /** A Workflow alone: every child workflow step it has names a Workflow that does not exist. */
  public static Validated<WorkflowModel> fromCrd(Workflow workflow, ServiceDirectory services) {
    return fromCrd(workflow, services, WorkflowDirectory.of(List.of(workflow)));
  }

  /**
   * @param workflows the Workflows there are: a child workflow step must name one of its namespace, and no Workflow
   *     may start itself, directly or through others
   */
  public static Validated<WorkflowModel> fromCrd(Workflow workflow, ServiceDirectory services,
      WorkflowDirectory workflows) {
    Validated<WorkflowDefinition> definition = dev.baton.workflow.WorkflowParser.parse(
        workflow.getMetadata().getNamespace(), workflow.getMetadata().getName(), 0, workflow.getSpec());
    if (!definition.isValid()) {
      return Validated.invalid(definition.problems());
    }
    List<Problem> problems = new ArrayList<>();
    for (Step.Task task : definition.value().tasks()) {
      checkReferences(task, services, problems);
    }
    for (Step step : definition.value().allSteps()) {
      if (step instanceof Step.Child child) {
        checkChild(workflow, child, workflows, problems);
      }
    }
    WorkflowSpec spec = workflow.getSpec();
    QueueType type = spec.getQueueType() == null ? QueueType.CLASSIC : spec.getQueueType().toQueueType();
    // The same steps the runtime keeps routed for each revision it runs (WorkflowSpecs.resultSources).
    return Validated.of(problems, () -> new WorkflowModel(workflow.getMetadata().getName(), spec.getEntity(), type,
        WorkflowSpecs.resultSources(spec)));
  }

  private static void checkReferences(Step.Task step, ServiceDirectory services, List<Problem> problems) {
    Optional<ServiceDirectory.Provider> provider = services.lookup(step.service());
    if (provider.isEmpty()) {
      problems.add(new Problem(ProblemKind.MISSING_SERVICE, "step '" + step.name() + "' uses service '"
          + step.service() + "', which no WorkerService provides: create a WorkerService with that service name "
          + "or correct the step"));
      return;
    }
    if (!provider.get().accepts(step.command())) {
      problems.add(missingCommand(step, "command", step.command(), provider.get()));
    }
    if (step.compensate() != null && !provider.get().accepts(step.compensate())) {
      problems.add(missingCommand(step, "compensate command", step.compensate(), provider.get()));
    }
  }

  private static void checkChild(Workflow workflow, Step.Child step, WorkflowDirectory workflows,
      List<Problem> problems) {
    String namespace = workflow.getMetadata().getNamespace();
    String name = workflow.getMetadata().getName();
    if (!workflows.exists(namespace, step.workflow()) && !step.workflow().equals(name)) {
      problems.add(new Problem(ProblemKind.MISSING_WORKFLOW, "step '" + step.name() + "' starts Workflow '"
          + step.workflow() + "', which does not exist in namespace " + namespace + ": create it or correct the step"));
      return;
    }
    workflows.cycle(namespace, name, step.workflow()).ifPresent(cycle -> problems.add(Problem.invalid("step '"
        + step.name() + "' starts Workflow '" + step.workflow() + "', which leads back to this one ("
        + String.join(" -> ", cycle) + "): a Workflow cannot start itself, directly or through others")));
  }

  private static Problem missingCommand(Step.Task step, String what, String command, ServiceDirectory.Provider p) {
    return new Problem(ProblemKind.MISSING_COMMAND, "step '" + step.name() + "' uses " + what + " '" + command
        + "', which service '" + p.service() + "' (WorkerService " + p.resource() + ") does not accept; it accepts "
        + (p.commands().isEmpty() ? "no commands" : String.join(", ", p.commands()))
        + ": add the command to the WorkerService or correct the step");
  }

  /** Who holds which orchestrator queue among these Workflows (all namespaces): a Workflow claims its name. */
  public static NameClaims<Workflow> claims(Collection<Workflow> all) {
    return NameClaims.of(all, WorkflowTranslator::claimedName, WorkflowTranslator::incumbent);
  }

  /** As {@link #claims(Collection)}, with the claimants of a name looked up when it is asked about. */
  public static NameClaims<Workflow> claims(Function<String, Collection<Workflow>> claimants) {
    return NameClaims.indexed(claimants, WorkflowTranslator::claimedName, WorkflowTranslator::incumbent);
  }

  private static boolean incumbent(Workflow wf) {
    return wf.getStatus() != null
        && dev.baton.contract.Names.orchestratorQueue(wf.getMetadata().getName()).equals(wf.getStatus().getQueue())
        && !NameClaims.inConflict(wf.getStatus());
  }

  public static Optional<String> claimedName(Workflow workflow) {
    return Optional.of(workflow.getMetadata().getName());
  }

  /**
   * The service names a Workflow's tasks refer to, nested ones included, for mapping WorkerService events to the
   * Workflows they concern; read from the spec as it is, valid or not.
   */
  public static List<String> referencedServices(Workflow workflow) {
    return WorkflowSpecs.allSteps(workflow.getSpec()).stream().map(StepSpec::getService)
        .filter(java.util.Objects::nonNull).distinct().toList();
  }
}
