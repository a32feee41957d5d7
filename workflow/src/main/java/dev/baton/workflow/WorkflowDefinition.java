package dev.baton.workflow;

import dev.baton.api.v1alpha1.OnFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Workflow spec at one revision, checked and with its defaults applied: what the operator declares topology for and
 * what instances of that revision follow. Built only by {@link WorkflowParser}.
 *
 * @param steps the top-level steps, in order; nested steps are inside their parallel and choice steps
 * @param timeout {@code spec.timeout}: how long an instance of this revision may run, from its start; null for none
 * @param allSteps every step, nested ones included, in declaration order (a group before the steps inside it):
 *     derived from {@code steps} once, as the lookups below are made for every event of every instance
 * @param stepsByName {@link #allSteps} by name (names are unique across the tree)
 */
public record WorkflowDefinition(String namespace, String name, int revision, String entity, OnFailure onFailure,
    List<Step> steps, Duration timeout, List<Step> allSteps, Map<String, Step> stepsByName) {

  public WorkflowDefinition {
    steps = List.copyOf(steps);
    List<Step> all = new ArrayList<>();
    collect(steps, all);
    allSteps = List.copyOf(all);
    Map<String, Step> byName = new LinkedHashMap<>();
    all.forEach(step -> byName.putIfAbsent(step.name(), step));
    stepsByName = Collections.unmodifiableMap(byName);
  }

  public WorkflowDefinition(String namespace, String name, int revision, String entity, OnFailure onFailure,
      List<Step> steps, Duration timeout) {
    this(namespace, name, revision, entity, onFailure, steps, timeout, List.of(), Map.of());
  }

  /** A definition whose instances have no deadline of their own. */
  public WorkflowDefinition(String namespace, String name, int revision, String entity, OnFailure onFailure,
      List<Step> steps) {
    this(namespace, name, revision, entity, onFailure, steps, null);
  }

  /** Any step by name, nested ones included. */
  public Optional<Step> step(String name) {
    return Optional.ofNullable(stepsByName.get(name));
  }

  /** Whether a step waits for a signal (signals are read for its instances only then). */
  public boolean waitsForSignals() {
    return allSteps.stream().anyMatch(Step.Wait.class::isInstance);
  }

  /** Whether a step starts a child workflow. */
  public boolean startsChildren() {
    return allSteps.stream().anyMatch(Step.Child.class::isInstance);
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
