package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.BatonDuration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** A Workflow spec at one revision, checked and with defaults resolved: what instances of that revision follow. */
public record WorkflowDefinition(
    String namespace, String name, int revision, String entity, OnFailure onFailure, List<StepDefinition> steps) {

  /** Sent in all when a step says {@code onTimeout: Redispatch} without {@code maxDispatches}. */
  public static final int DEFAULT_MAX_DISPATCHES = 3;

  public WorkflowDefinition {
    steps = List.copyOf(steps);
  }

  /**
   * Reads a spec. The operator validates Workflows too, but the runtime may run without it (tests, a lagging
   * operator): a spec it cannot follow is refused here with a message a person can act on.
   *
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public static WorkflowDefinition of(String namespace, String name, int revision, WorkflowSpec spec) {
    if (spec == null || spec.getEntity() == null || spec.getEntity().isBlank()) {
      throw new IllegalArgumentException("spec.entity is missing");
    }
    if (spec.getSteps() == null || spec.getSteps().isEmpty()) {
      throw new IllegalArgumentException("spec.steps is empty: a Workflow needs at least one step");
    }
    List<StepDefinition> steps = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (StepSpec s : spec.getSteps()) {
      int i = steps.size();
      String where = "spec.steps[" + i + "]";
      require(s.getName(), where + ".name");
      require(s.getService(), where + ".service");
      require(s.getCommand(), where + ".command");
      if (!names.add(s.getName())) {
        throw new IllegalArgumentException(where + ".name '" + s.getName() + "' is used by an earlier step");
      }
      Duration timeout = null;
      if (s.getTimeout() != null) {
        try {
          timeout = BatonDuration.parse(s.getTimeout()).toDuration();
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(where + ".timeout: " + e.getMessage(), e);
        }
      }
      OnTimeout onTimeout = s.getOnTimeout() == null ? OnTimeout.Fail : s.getOnTimeout();
      int maxDispatches = s.getMaxDispatches() == null ? DEFAULT_MAX_DISPATCHES : s.getMaxDispatches();
      if (maxDispatches < 1) {
        throw new IllegalArgumentException(where + ".maxDispatches must be at least 1");
      }
      String compensate = s.getCompensate() == null || s.getCompensate().isBlank() ? null : s.getCompensate();
      steps.add(new StepDefinition(i, s.getName(), s.getService(), s.getCommand(), s.effectiveAction(), compensate,
          timeout, onTimeout, onTimeout == OnTimeout.Redispatch ? maxDispatches : 1));
    }
    OnFailure onFailure = spec.getOnFailure() == null ? OnFailure.Compensate : spec.getOnFailure();
    return new WorkflowDefinition(namespace, name, revision, spec.getEntity(), onFailure, steps);
  }

  private static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " is missing");
    }
  }

  public StepDefinition step(int index) {
    return steps.get(index);
  }

  public boolean isLast(int index) {
    return index == steps.size() - 1;
  }

  /** The nearest step before {@code index} that declares a compensation, or -1: compensations run in reverse order. */
  public int previousCompensable(int index) {
    for (int i = index - 1; i >= 0; i--) {
      if (steps.get(i).isCompensable()) {
        return i;
      }
    }
    return -1;
  }
}
