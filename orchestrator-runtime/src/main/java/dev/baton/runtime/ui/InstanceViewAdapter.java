package dev.baton.runtime.ui;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.ui.InstanceView.Dispatch;
import dev.baton.runtime.ui.InstanceView.Failure;
import dev.baton.runtime.ui.InstanceView.StepView;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the instance document of {@code GET /api/v1/instances/{id}} — the contract, not the tables behind it —
 * into an {@link InstanceView}. Compensations are recognised in both forms the contract allows: kind
 * {@code COMPENSATION} with the step's name, or a task named {@code <step>/compensate}.
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

  static InstanceView from(JsonNode doc) {
    Map<String, StepBuilder> steps = new LinkedHashMap<>();
    Map<String, Dispatch> compensations = new LinkedHashMap<>();
    for (JsonNode s : doc.path("steps")) {
      String name = text(s, "name");
      String kind = text(s, "kind");
      Dispatch d = dispatch(s, name);
      if ("COMPENSATION".equalsIgnoreCase(kind)) {
        compensations.put(name, d);
      } else if (name != null && name.endsWith(COMPENSATE_SUFFIX)) {
        compensations.put(name.substring(0, name.length() - COMPENSATE_SUFFIX.length()), d);
      } else {
        StepBuilder b = steps.computeIfAbsent(name, n -> new StepBuilder(n, StepKind.parse(kind), text(s, "parent")));
        b.dispatches.add(d);
        b.chosen = text(s, "chosen");
      }
    }
    List<StepView> views = new ArrayList<>();
    steps.values().forEach(b -> views.add(b.build(compensations.remove(b.name))));
    // a compensation whose step is not in the list (cannot happen today) still shows
    compensations.forEach((name, d) -> views.add(new StepView(name, StepKind.TASK, null, d, List.of(d), d, null)));
    return new InstanceView(text(doc, "id"), text(doc, "namespace"), text(doc, "workflow"),
        doc.path("revision").asInt(), text(doc, "businessKey"), text(doc, "status"), text(doc, "phase"),
        text(doc, "currentStep"), doc.path("attempt").asInt(), time(doc, "since"), time(doc, "deadline"),
        lastError(doc.path("lastError")), time(doc, "createdAt"), time(doc, "updatedAt"), time(doc, "finishedAt"),
        doc.path("input"), doc.path("outputs"), List.copyOf(views), text(doc, "traceId"));
  }

  private static Dispatch dispatch(JsonNode s, String step) {
    JsonNode e = s.path("error");
    Failure error = e.isObject() ? new Failure(step, text(s, "kind"), text(s, "status"), text(e, "code"),
        text(e, "reason"), time(s, "finishedAt")) : null;
    return new Dispatch(text(s, "action"), text(s, "status"), s.path("attempt").asInt(), time(s, "startedAt"),
        time(s, "finishedAt"), s.path("output"), error);
  }

  private static Failure lastError(JsonNode e) {
    if (!e.isObject()) {
      return null;
    }
    return new Failure(text(e, "step"), text(e, "kind"), text(e, "status"), text(e, "errorCode"), text(e, "reason"),
        time(e, "at"));
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.path(field);
    return v.isNull() || v.isMissingNode() ? null : v.asText();
  }

  private static Instant time(JsonNode n, String field) {
    String t = text(n, field);
    if (t == null) {
      return null;
    }
    try {
      return Instant.parse(t);
    } catch (DateTimeParseException e) {
      return null;
    }
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

    StepView build(Dispatch compensation) {
      return new StepView(name, kind, parent, dispatches.get(dispatches.size() - 1), List.copyOf(dispatches),
          compensation, chosen);
    }
  }
}
