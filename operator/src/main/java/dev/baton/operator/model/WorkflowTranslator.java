package dev.baton.operator.model;

import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.operator.status.Reason;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Workflow (+ the services of the vhost) → {@link WorkflowModel}, or the problems a person must fix, each naming
 * the step and the missing reference. Pure.
 */
public final class WorkflowTranslator {

  /** RabbitMQ's limit on queue names, in bytes; Workflow names are ASCII. */
  static final int MAX_QUEUE_NAME = 255;

  private WorkflowTranslator() {}

  public static Validated<WorkflowModel> fromCrd(Workflow workflow, ServiceDirectory services) {
    WorkflowSpec spec = workflow.getSpec();
    if (spec == null) {
      return Validated.invalid(List.of(Problem.invalid("spec is missing: set spec.entity and spec.steps")));
    }
    List<Problem> problems = new ArrayList<>();
    String name = workflow.getMetadata().getName();
    if (Names.orchestratorDeadLetterQueue(name).length() > MAX_QUEUE_NAME) {
      problems.add(Problem.invalid("metadata.name is too long for its queue " + Names.orchestratorDeadLetterQueue(name)
          + " (RabbitMQ allows " + MAX_QUEUE_NAME + " characters): choose a shorter name"));
    }
    if (!Names.isValidToken(spec.getEntity())) {
      problems.add(Problem.invalid("spec.entity '" + spec.getEntity()
          + "' is not a valid entity: lowercase letters, digits, '_' and '-', no dots (it begins every event routing key)"));
    }
    if (spec.getSteps().isEmpty()) {
      problems.add(Problem.invalid("spec.steps is empty: a Workflow needs at least one step"));
    }
    Map<String, Integer> stepIndex = new HashMap<>();
    List<WorkflowModel.Step> steps = new ArrayList<>();
    for (int i = 0; i < spec.getSteps().size(); i++) {
      StepSpec step = spec.getSteps().get(i);
      String field = "spec.steps[" + i + "]";
      if (checkStep(field, step, stepIndex, i, problems) && checkReferences(step, services, problems)) {
        steps.add(new WorkflowModel.Step(step.getName(), step.getService(), step.effectiveAction(), step.getCompensate()));
      }
    }
    QueueType type = spec.getQueueType() == null ? QueueType.CLASSIC : spec.getQueueType().toQueueType();
    return Validated.of(problems, () -> new WorkflowModel(name, spec.getEntity(), type, steps));
  }

  /** Checks what the schema would: names, durations, uniqueness. Returns whether the step can be resolved. */
  private static boolean checkStep(String field, StepSpec step, Map<String, Integer> stepIndex, int index,
      List<Problem> problems) {
    int before = problems.size();
    if (!Names.isValidToken(step.getName())) {
      problems.add(Problem.invalid(field + ".name '" + step.getName()
          + "' is not a valid step name: lowercase letters, digits, '_' and '-', no dots"));
    } else {
      Integer first = stepIndex.putIfAbsent(step.getName(), index);
      if (first != null) {
        problems.add(Problem.invalid(field + ".name: step name '" + step.getName() + "' is already used by spec.steps["
            + first + "]: step names must be unique"));
      }
    }
    token(problems, field + ".service", step.getService(), true);
    token(problems, field + ".command", step.getCommand(), true);
    token(problems, field + ".action", step.getAction(), false);
    token(problems, field + ".compensate", step.getCompensate(), false);
    if (step.getTimeout() != null) {
      try {
        BatonDuration.parse(step.getTimeout());
      } catch (IllegalArgumentException | ArithmeticException e) {
        problems.add(Problem.invalid(field + ".timeout: " + (e instanceof ArithmeticException
            ? "'" + step.getTimeout() + "' is too long a duration" : e.getMessage())));
      }
    }
    if (step.getMaxDispatches() != null && step.getMaxDispatches() < 1) {
      problems.add(Problem.invalid(field + ".maxDispatches must be at least 1"));
    }
    return problems.size() == before;
  }

  private static void token(List<Problem> problems, String field, String value, boolean required) {
    if (value == null && !required) {
      return;
    }
    if (!Names.isValidToken(value)) {
      problems.add(Problem.invalid(field + " '" + value + "' is not a valid name: lowercase letters, digits, '_' and '-', "
          + "no dots"));
    }
  }

  private static boolean checkReferences(StepSpec step, ServiceDirectory services, List<Problem> problems) {
    Optional<ServiceDirectory.Provider> provider = services.lookup(step.getService());
    if (provider.isEmpty()) {
      problems.add(new Problem(Reason.MISSING_SERVICE, "step '" + step.getName() + "' uses service '"
          + step.getService() + "', which no WorkerService provides: create a WorkerService with that service name "
          + "or correct the step"));
      return false;
    }
    boolean ok = true;
    if (!provider.get().accepts(step.getCommand())) {
      problems.add(missingCommand(step, "command", step.getCommand(), provider.get()));
      ok = false;
    }
    if (step.getCompensate() != null && !provider.get().accepts(step.getCompensate())) {
      problems.add(missingCommand(step, "compensate command", step.getCompensate(), provider.get()));
      ok = false;
    }
    return ok;
  }

  private static Problem missingCommand(StepSpec step, String what, String command, ServiceDirectory.Provider p) {
    return new Problem(Reason.MISSING_COMMAND, "step '" + step.getName() + "' uses " + what + " '" + command
        + "', which service '" + p.service() + "' (WorkerService " + p.resource() + ") does not accept; it accepts "
        + (p.commands().isEmpty() ? "no commands" : String.join(", ", p.commands()))
        + ": add the command to the WorkerService or correct the step");
  }

  /** Who holds which orchestrator queue among these Workflows (all namespaces): a Workflow claims its name. */
  public static NameClaims<Workflow> claims(Collection<Workflow> all) {
    return NameClaims.of(all, WorkflowTranslator::claimedName, wf -> wf.getStatus() != null
        && Names.orchestratorQueue(wf.getMetadata().getName()).equals(wf.getStatus().getQueue())
        && !NameClaims.inConflict(wf.getStatus()));
  }

  public static Optional<String> claimedName(Workflow workflow) {
    return Optional.of(workflow.getMetadata().getName());
  }

  /** The service names a Workflow refers to, for mapping WorkerService events to the Workflows they concern. */
  public static List<String> referencedServices(Workflow workflow) {
    return workflow.getSpec() == null ? List.of()
        : workflow.getSpec().getSteps().stream().map(StepSpec::getService).distinct().toList();
  }
}
