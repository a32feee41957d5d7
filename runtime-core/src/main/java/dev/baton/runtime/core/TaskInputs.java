package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.workflow.Expression;
import dev.baton.workflow.Iteration;
import dev.baton.workflow.Step;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a task's command (or a child's start) carries, and what expressions see: the instance input, the finished
 * steps ({@code steps}) and, inside a map's iteration, its {@code item} and {@code index}.
 */
final class TaskInputs {
  private final Draft d;

  TaskInputs(Draft draft) {
    this.d = draft;
  }

  /** A command's input merged from the instance input and the earlier outputs, and the outputs that are not objects. */
  record MergedInput(ObjectNode input, ObjectNode outputs) {}

  /** A task's {@code input} mapping: exactly the mapped object, key by key. */
  ObjectNode mappedInput(Step.Task task, Scope scope) {
    return mapped(task.input(), scope);
  }

  /** An {@code input} mapping (a task's, a child's), evaluated key by key in the scope. */
  ObjectNode mapped(Map<String, Expression> mapping, Scope scope) {
    Map<String, Object> input = inputForExpressions();
    Map<String, Object> steps = stepsForExpressions(scope);
    Iteration iteration = iteration(scope);
    ObjectNode mapped = Json.object();
    for (Map.Entry<String, Expression> e : new TreeMap<>(mapping).entrySet()) {
      mapped.set(e.getKey(), Json.MAPPER.valueToTree(e.getValue().evaluate(input, steps, iteration)));
    }
    return mapped;
  }

  /** A map iteration's {@code item} and {@code index}; null at the top. */
  Iteration iteration(Scope scope) {
    if (scope.map() == null) {
      return null;
    }
    JsonNode items = d.latest(scope.map().name()).items();
    return new Iteration(items == null ? null : items.get(scope.index()), scope.index());
  }

  /**
   * Today's command input: the instance input with each earlier step's output object merged in, in definition
   * order (later wins); outputs that are not objects cannot be merged and travel by step name instead.
   */
  MergedInput mergedInput(Scope scope) {
    ObjectNode merged = d.state.input().deepCopy();
    ObjectNode rest = null;
    for (Step step : d.all) {
      if (!scope.sees(step, d.mapOf)) {
        continue;
      }
      StepState row = d.latest(scope.rowName(step));
      if (row == null || row.status() != StepStatus.SUCCEEDED || row.output() == null || row.output().isNull()) {
        continue;
      }
      if (row.output() instanceof ObjectNode o) {
        merged.setAll(o);
      } else {
        if (rest == null) {
          rest = Json.object();
        }
        rest.set(step.name(), row.output());
      }
    }
    Iteration iteration = iteration(scope);
    if (iteration != null) { // a task of a map's iteration without a mapping also gets its item and index
      merged.set("item", Json.MAPPER.valueToTree(iteration.item()));
      merged.put("index", iteration.index());
    }
    return new MergedInput(merged, rest);
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> inputForExpressions() {
    return Json.MAPPER.convertValue(d.state.input(), Map.class);
  }

  /**
   * {@code steps} of an expression: the finished steps, name to {status, output}; inside a map's iteration, the
   * steps of that iteration by their own names.
   */
  Map<String, Object> stepsForExpressions(Scope scope) {
    Map<String, Object> steps = new HashMap<>();
    for (Step step : d.all) {
      if (!scope.sees(step, d.mapOf)) {
        continue;
      }
      StepState row = d.latest(scope.rowName(step));
      if (row != null && !row.isRunning()) {
        Map<String, Object> result = new HashMap<>();
        result.put("status", row.status().name());
        result.put("output", row.output());
        steps.put(step.name(), result);
      }
    }
    return steps;
  }
}
