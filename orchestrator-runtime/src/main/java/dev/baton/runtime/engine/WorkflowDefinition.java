package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.workflow.Step;
import java.util.ArrayList;
import java.util.List;

/** A Workflow spec at one revision, checked and with defaults resolved: what instances of that revision follow. */
public record WorkflowDefinition(
    String namespace, String name, int revision, String entity, OnFailure onFailure, List<StepDefinition> steps) {

  public WorkflowDefinition {
    steps = List.copyOf(steps);
  }

  /**
   * The linear view the step loop runs, of a definition the shared translator made (dev.baton.workflow, the one
   * parse of a Workflow). This runtime runs task steps only so far: a definition with parallel, choice, wait or delay
   * steps (or a task with an input mapping) is refused as one it cannot load, naming the first such step.
   *
   * @throws IllegalArgumentException when the definition has a step that is not a task
   */
  public static WorkflowDefinition from(dev.baton.workflow.WorkflowDefinition d) {
    List<StepDefinition> steps = new ArrayList<>();
    for (Step step : d.steps()) {
      if (!(step instanceof Step.Task t)) {
        throw new IllegalArgumentException("step '" + step.name() + "' is a " + step.kind().wireName()
            + " step, which this runtime cannot run yet: it runs task steps only");
      }
      if (t.hasMappedInput()) {
        throw new IllegalArgumentException("step '" + t.name() + "' maps its input (spec.steps[" + steps.size()
            + "].input), which this runtime cannot do yet");
      }
      steps.add(new StepDefinition(steps.size(), t.name(), t.service(), t.command(), t.action(), t.compensate(),
          t.timeout(), t.onTimeout(), t.maxDispatches()));
    }
    return new WorkflowDefinition(d.namespace(), d.name(), d.revision(), d.entity(), d.onFailure(), steps);
  }

  public StepDefinition step(int index) {
    return steps.get(index);
  }

  public java.util.Optional<StepDefinition> stepNamed(String name) {
    return steps.stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** Whether any step waits for a signal (the others need not read stored signals). */
  public boolean waitsForSignals() {
    return false;
  }
}
