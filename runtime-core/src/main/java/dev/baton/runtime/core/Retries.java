package dev.baton.runtime.core;

import dev.baton.workflow.Step;
import java.util.ArrayList;
import java.util.List;

/** A retry of a FAILED instance: what failed starts again as new attempts, and the instance carries on. */
final class Retries {
  private final Draft d;

  Retries(Draft draft) {
    this.d = draft;
  }

  /**
   * The failed steps again, as new attempts: a failed or cancelled task, wait or delay, and a choice whose
   * expression failed, start again; a parallel or choice step that failed because of a step inside it carries on
   * (its choice stands). Then the walk goes on from there. A failed compensation is sent again.
   */
  void retryFailed() {
    if (d.phase == Phase.FORWARD) {
      // In definition order, each step's rows (a step in a map has one per iteration) in the order they started.
      List<StepState> rows = new ArrayList<>();
      for (Step step : d.all) {
        d.latest.values().stream().filter(r -> r.definitionName().equals(step.name())).forEach(rows::add);
      }
      for (StepState row : rows) {
        Step step = d.byName.get(row.definitionName());
        if (row.isCompensation() || !(row.status().isFailure()
            || row.status() == StepStatus.CANCELLED)) {
          continue;
        }
        Scope scope = d.scopeOf(row);
        Step.Map map = row.kind().equals("iteration") ? (Step.Map) step : scope.map();
        if (map != null && d.latest(map.name()).status() == StepStatus.SUCCEEDED) {
          continue; // an iteration whose failure its map tolerated stays as it ended
        }
        if (row.kind().equals("iteration")) {
          d.put(row.reopened());
          continue;
        }
        // A map that evaluated its items, a parallel, a choice that chose: carry on inside, as they were.
        boolean group = step instanceof Step.Parallel || step instanceof Step.Map && row.items() != null
            || step instanceof Step.Choice && row.chosen() != null;
        if (group) {
          d.put(row.reopened());
        } else {
          d.walk.start(step, row.parent(), row.attempt() + 1, scope);
        }
      }
      d.walk.fromTop();
      return;
    }
    for (StepState c : List.copyOf(d.latest.values())) {
      if (c.isCompensation() && c.status() != StepStatus.SUCCEEDED && !c.isRunning() && c.kind().equals("workflow")) {
        d.started(StepState.started(c.name(), "workflow", c.parent(), c.attempt() + 1, 1, null, null, null));
      } else if (c.isCompensation() && c.status() != StepStatus.SUCCEEDED && !c.isRunning()) {
        d.tasks.start((Step.Task) d.byName.get(c.definitionName()), c.parent(), c.attempt() + 1, 1, true,
            d.scopeOf(c));
      }
    }
    d.compensation.undoNext();
  }
}
