package dev.baton.runtime.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceLink;
import dev.baton.httpapi.LastError;
import dev.baton.httpapi.MapIterations;
import dev.baton.httpapi.StepDocument;
import dev.baton.runtime.ui.InstanceView.Dispatch;
import dev.baton.runtime.ui.InstanceView.Failure;
import dev.baton.runtime.ui.InstanceView.StepView;
import dev.baton.workflow.StepKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;


/**
 * Reads the instance document of {@code GET /api/v1/instances/{id}} — the contract, not the tables behind it —
 * into an {@link InstanceView}. Compensations are recognised in both forms the contract allows: kind
 * {@code COMPENSATION} with the step's name, or a task named {@code <step>/compensate}. The rows of a map's iterations
 * ({@code ship-items[3]}, {@code ship-one[3]}, ...) are folded per map ({@link MapIterations}), not made steps. The
 * instances child workflow steps started ({@code children}) go to their steps, and stay by row for iterations'.
 */
final class InstanceViewAdapter {

  static final String COMPENSATE_SUFFIX = "/compensate";

  private InstanceViewAdapter() {}

  /** A current step in words: a compensation ({@code <step>/compensate}, or in the compensation phase) by its step. */
  static String place(String currentStep, String phase) {
    String step = currentStep == null ? "" : currentStep;
    if (step.endsWith(COMPENSATE_SUFFIX)) {
      return "compensating " + step.substring(0, step.length() - COMPENSATE_SUFFIX.length());
    }
    return "COMPENSATION".equals(phase) ? "compensating " + step : step;
  }

  static InstanceView from(InstanceDocument doc) {
    Map<String, InstanceLink> children = new LinkedHashMap<>();
    for (InstanceLink child : doc.children() == null ? List.<InstanceLink>of() : doc.children()) {
      if (child != null && child.step() != null) {
        children.put(child.step(), child);
      }
    }
    Map<String, StepBuilder> steps = new LinkedHashMap<>();
    Map<String, Dispatch> compensations = new LinkedHashMap<>();
    List<StepDocument> rows = doc.steps() == null ? List.of() : doc.steps();
    for (StepDocument s : rows) {
      if (MapIterations.inIteration(s)) {
        continue;
      }
      String name = s.name();
      Dispatch d = dispatch(s);
      if ("COMPENSATION".equalsIgnoreCase(s.kind())) {
        compensations.put(name, d);
      } else if (name != null && name.endsWith(COMPENSATE_SUFFIX)) {
        compensations.put(name.substring(0, name.length() - COMPENSATE_SUFFIX.length()), d);
      } else {
        StepBuilder b = steps.computeIfAbsent(name, n -> new StepBuilder(n, kindOf(s.kind()), s.parent()));
        b.dispatches.add(d);
        b.chosen = s.chosen();
      }
    }
    List<StepView> views = new ArrayList<>();
    steps.values().forEach(b -> views.add(b.build(compensations.remove(b.name), children.get(b.name))));
    // a compensation whose step is not in the list (cannot happen today) still shows
    compensations.forEach((name, d) -> views.add(new StepView(name, StepKind.TASK, null, d, List.of(d), d, null)));
    return new InstanceView(doc.id(), doc.namespace(), doc.workflow(), doc.revision(), doc.businessKey(),
        doc.status(), doc.phase(), doc.currentStep(), doc.attempt(), doc.since(), doc.deadline(),
        lastError(doc.lastError()), doc.createdAt(), doc.updatedAt(), doc.finishedAt(), orMissing(doc.input()),
        orMissing(doc.outputs()), List.copyOf(views), doc.traceId(), doc.createdBy(),
        doc.audit() == null ? List.of() : List.copyOf(doc.audit()), doc.instanceDeadline(), MapIterations.of(rows),
        doc.parent(), Collections.unmodifiableMap(children));
  }

  /**
   * The kind of a step in the instance document ({@code task}, {@code parallel}, ...); {@code STEP} and
   * {@code COMPENSATION}, which older runtimes wrote, and anything unknown are tasks.
   */
  static StepKind kindOf(String text) {
    try {
      return text == null ? StepKind.TASK : StepKind.fromWireName(text);
    } catch (IllegalArgumentException e) {
      return StepKind.TASK;
    }
  }

  private static Dispatch dispatch(StepDocument s) {
    return new Dispatch(s.action(), s.status(), s.attempt(), s.startedAt(), s.finishedAt(), orMissing(s.output()),
        failure(s));
  }

  /** Why an attempt failed, or null. */
  static Failure failure(StepDocument s) {
    StepDocument.StepError e = s.error();
    return e == null ? null : new Failure(s.name(), s.kind(), s.status(), e.code(), e.reason(), s.finishedAt());
  }

  private static Failure lastError(LastError e) {
    return e == null ? null
        : new Failure(e.step(), e.kind(), e.status(), e.errorCode(), e.reason(), e.at());
  }

  /** Absent JSON as the views expect it: a missing node, never null. */
  private static JsonNode orMissing(JsonNode node) {
    return node == null ? MissingNode.getInstance() : node;
  }

  private static final class StepBuilder {
    final String name;
    final StepKind kind;
    final String parent;
    final List<Dispatch> dispatches = new ArrayList<>();
    String chosen;

    StepBuilder(String name, StepKind kind, String parent) {
      this.name = name;
      this.kind = kind;
      this.parent = parent;
    }

    StepView build(Dispatch compensation, InstanceLink child) {
      return new StepView(name, kind, parent, dispatches.get(dispatches.size() - 1), List.copyOf(dispatches),
          compensation, chosen, child);
    }
  }
}
