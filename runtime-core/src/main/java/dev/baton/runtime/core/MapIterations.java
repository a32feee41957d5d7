package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.Bounds;
import dev.baton.runtime.core.Transition.LastError;
import dev.baton.workflow.ExpressionException;
import dev.baton.workflow.IterationNames;
import dev.baton.workflow.Step;
import java.util.List;

/**
 * A map step: its items evaluated once when it starts, and its iterations {@code <map>[i]} (kind {@code iteration}),
 * each running the map's steps as {@code <step>[i]}.
 */
final class MapIterations {
  private final Draft d;

  MapIterations(Draft draft) {
    this.d = draft;
  }

  /** Starts a map: its {@code items} evaluated once and kept on its row; not a list, or too many, fails it. */
  void start(Step.Map map, String name, String parent, int attempt) {
    StepState row = StepState.started(name, "map", parent, attempt, 1, null, null, null);
    d.started(row);
    Object items;
    try {
      items = map.items().evaluate(d.inputs.inputForExpressions(), d.inputs.stepsForExpressions(Scope.TOP));
    } catch (ExpressionException e) {
      d.end(row, StepStatus.FAILED, null, StateMachine.EXPRESSION_ERROR, e.getMessage(), null, true);
      return;
    }
    if (!(items instanceof List<?> list)) {
      d.end(row, StepStatus.FAILED, null, StateMachine.EXPRESSION_ERROR, "'" + map.items().text() + "' yielded "
          + (items == null ? "null" : Json.write(Json.MAPPER.valueToTree(items))) + ", not a list", null, true);
    } else if (list.size() > Bounds.MAP_ITEMS) {
      d.end(row, StepStatus.FAILED, null, StateMachine.TOO_MANY_ITEMS, "'" + map.items().text() + "' yielded "
          + list.size() + " items; a map takes at most " + Bounds.MAP_ITEMS, null, true);
    } else {
      d.put(row.withItems(Json.MAPPER.valueToTree(list)));
    }
  }

  /**
   * A map in flight: each iteration started goes on inside; the next ones (in item order) start while fewer than
   * {@code maxConcurrency} run and nothing failed beyond what is tolerated. An iteration ends with its steps: its
   * output is its last step's; a failure inside it fails it. More failed iterations than {@code toleratedFailures}
   * fail the map as a failure anywhere else would (nothing new starts; what is in flight is awaited). When every
   * iteration has ended, the map's output is their outputs in item order (null for a tolerated failure).
   */
  Progress advance(Step.Map map, StepState row) {
    int count = row.items() == null ? 0 : row.items().size();
    int running = 0;
    int failed = 0;
    for (int i = 0; i < count; i++) {
      StepState it = d.latest(IterationNames.of(map.name(), i));
      if (it != null && it.isRunning()) {
        running++;
      } else if (it != null && it.status() != StepStatus.SUCCEEDED) {
        failed++;
      }
    }
    boolean allEnded = true;
    StepState failure = null;
    for (int i = 0; i < count; i++) {
      String name = IterationNames.of(map.name(), i);
      StepState it = d.latest(name);
      if (it == null) {
        if (d.halted || failed > map.toleratedFailures()
            || map.maxConcurrency() > 0 && running >= map.maxConcurrency()) {
          allEnded = false;
          continue;
        }
        d.started(StepState.started(name, "iteration", row.name(), 1, 1, null, null, null));
        it = d.latest(name);
        running++;
      }
      if (!it.isRunning()) {
        continue;
      }
      Scope scope = new Scope(map, i);
      Progress p = d.walk.advance(map.steps(), name, scope);
      if (p == Progress.WAITING) {
        allEnded = false;
        continue;
      }
      running--;
      if (p == Progress.DONE) {
        StepState last = d.latest(scope.rowName(map.last()));
        d.end(it, StepStatus.SUCCEEDED, last == null ? null : last.output(), null, null, null, false);
      } else {
        StepState cause = failureIn(scope);
        closeIteration(scope);
        d.end(it, StepStatus.FAILED, null, cause == null ? null : cause.errorCode(),
            cause == null ? "a step inside failed" : cause.name() + ": " + cause.errorReason(), null, false);
        failed++;
        if (failed > map.toleratedFailures() && failure == null) {
          failure = cause;
        }
      }
    }
    if (failed > map.toleratedFailures()) {
      // The failure that went past the tolerance is the instance's last error (once: a later walk finds the map
      // already past it, awaiting what is in flight).
      if (failure != null && !d.halted) {
        d.lastError = new LastError(failure.name(), failure.kind(), failure.action(), failure.attempt(),
            failure.status(), failure.errorCode(), failure.errorReason());
      }
      d.halted = true;
      return Progress.FAILED;
    }
    if (!allEnded) {
      return Progress.WAITING;
    }
    ArrayNode outputs = Json.MAPPER.createArrayNode();
    for (int i = 0; i < count; i++) {
      StepState it = d.latest(IterationNames.of(map.name(), i));
      outputs.add(it.status() == StepStatus.SUCCEEDED && it.output() != null ? it.output()
          : Json.MAPPER.nullNode());
    }
    d.end(row, StepStatus.SUCCEEDED, outputs, null, null, null, false);
    return Progress.DONE;
  }

  /** The step whose failure failed an iteration: the latest failed row inside it. */
  private StepState failureIn(Scope scope) {
    StepState cause = null;
    for (StepState r : d.latest.values()) {
      if (!r.isCompensation() && r.status().isFailure() && scope.holds(r, d.mapOf)
          && (cause == null || Draft.seqOf(r) > Draft.seqOf(cause))) {
        cause = r;
      }
    }
    return cause;
  }

  /**
   * A failed iteration stops: the groups and waits inside it end with it; a task in flight inside it is left to
   * answer (or time out), so that what it did is known before anything is compensated.
   */
  private void closeIteration(Scope scope) {
    for (StepState r : List.copyOf(d.latest.values())) {
      if (r.isRunning() && !r.kind().equals("task") && scope.holds(r, d.mapOf)) {
        d.end(r, r.isGroup() ? StepStatus.FAILED : StepStatus.CANCELLED, null, null,
            r.isGroup() ? "a step inside failed" : "its iteration failed", null, false);
      }
    }
  }
}
