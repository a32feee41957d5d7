package dev.baton.runtime.core;

import dev.baton.workflow.IterationNames;
import dev.baton.workflow.Step;
import java.util.Map;

/**
 * Where a step runs: at the top (a step outside any map), or in iteration {@code index} of {@code map}, whose steps'
 * rows are named {@code <step>[<index>]}.
 */
record Scope(Step.Map map, int index) {

  static final Scope TOP = new Scope(null, -1);

  /** The name of the step's row in this scope. */
  String rowName(Step step) {
    return map == null ? step.name() : IterationNames.of(step.name(), index);
  }

  /** Whether the step's row is seen from here: the top's steps from anywhere, an iteration's only from inside. */
  boolean sees(Step step, Map<String, Step.Map> mapOf) {
    Step.Map of = mapOf.get(step.name());
    return of == null || map != null && of.name().equals(map.name());
  }

  /** Whether a row runs inside this iteration. */
  boolean holds(StepState row, Map<String, Step.Map> mapOf) {
    Step.Map of = mapOf.get(row.definitionName());
    return map != null && of != null && of.name().equals(map.name()) && row.iteration() == index;
  }
}
