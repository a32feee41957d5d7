package dev.baton.workflow;

import dev.baton.api.v1alpha1.OnFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A Workflow spec at one revision, checked and with its defaults applied: what the operator declares topology for and
 * what instances of that revision follow. Built only by {@link WorkflowParser}.
 *
 * @param steps the top-level steps, in order; nested steps are inside their parallel and choice steps
 * @param timeout {@code spec.timeout}: how long an instance of this revision may run, from its start; null for none
 */
public record WorkflowDefinition(String namespace, String name, int revision, String entity, OnFailure onFailure,
    List<Step> steps, Duration timeout) {

  public WorkflowDefinition {
    steps = List.copyOf(steps);
  }

  /** A definition whose instances have no deadline of their own. */
  public WorkflowDefinition(String namespace, String name, int revision, String entity, OnFailure onFailure,
      List<Step> steps) {
    this(namespace, name, revision, entity, onFailure, steps, null);
  }

  /** Any step by name, nested ones included. */
  public Optional<Step> step(String name) {
    return allSteps().stream().filter(s -> s.name().equals(name)).findFirst();
  }

  /** Every step, nested ones included, in declaration order (a group before the steps inside it). */
  public List<Step> allSteps() {
    List<Step> all = new ArrayList<>();
    collect(steps, all);
    return all;
  }

  /** Every task, nested ones included, in declaration order. */
  public List<Step.Task> tasks() {
    return allSteps().stream().filter(Step.Task.class::isInstance).map(Step.Task.class::cast).toList();
  }

  /** The name of the parallel or choice step that directly encloses {@code stepName}; empty at the top level. */
  public Optional<String> parentOf(String stepName) {
    for (Step s : allSteps()) {
      if (s.children().stream().anyMatch(c -> c.name().equals(stepName))) {
        return Optional.of(s.name());
      }
    }
    return Optional.empty();
  }

  /** The Workflows its child workflow steps start (same namespace), in declaration order, each once. */
  public List<String> childWorkflows() {
    return allSteps().stream().filter(Step.Child.class::isInstance).map(s -> ((Step.Child) s).workflow())
        .distinct().toList();
  }

  /** Whether every step is a task: the straight line of the first version of the language. */
  public boolean isLinear() {
    return steps.stream().allMatch(Step.Task.class::isInstance);
  }

  private static void collect(List<Step> level, List<Step> into) {
    for (Step s : level) {
      into.add(s);
      collect(s.children(), into);
    }
  }
}
