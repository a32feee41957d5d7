package dev.baton.runtime.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.StepStatus;
import dev.baton.runtime.store.InstanceRecord;
import java.time.Instant;
import java.util.List;

/**
 * Instances as the API shows them (docs/design.md#interfaces), plus what answers "which step, which attempt, since when, and the
 * last error" in one read: {@code currentStep}, {@code attempt}, {@code since}, {@code lastError}.
 */
final class InstanceJson {

  private InstanceJson() {}

  /** The list form: everything but the step history, input and outputs. */
  static ObjectNode summary(InstanceRecord i) {
    ObjectNode o = Json.object();
    o.put("id", i.id().toString());
    o.put("namespace", i.namespace());
    o.put("workflow", i.workflow());
    o.put("revision", i.revision());
    o.put("businessKey", i.businessKey());
    o.put("traceId", MessageTracing.traceIdOf(i.traceparent()));
    o.put("status", i.status().name());
    o.put("phase", i.phase().name());
    o.put("currentStep", i.stepName());
    o.put("attempt", i.attempt());
    time(o, "since", i.stepStartedAt());
    time(o, "deadline", i.stepDeadline());
    o.set("lastError", Json.read(i.lastErrorJson()));
    time(o, "createdAt", i.createdAt());
    time(o, "updatedAt", i.updatedAt());
    time(o, "finishedAt", i.finishedAt());
    return o;
  }

  /**
   * The full form: with input, the outputs by step, and every attempt of every step (compensations included, as
   * tasks named {@code <step>/compensate}), oldest first.
   */
  static ObjectNode detail(InstanceRecord i, List<StepState> steps) {
    ObjectNode o = summary(i);
    o.set("input", Json.read(i.inputJson()));
    ObjectNode outputs = o.putObject("outputs");
    ArrayNode list = o.putArray("steps");
    for (StepState e : steps) {
      if (!e.isCompensation() && e.status() == StepStatus.SUCCEEDED && e.output() != null) {
        outputs.set(e.name(), e.output());
      }
      ObjectNode s = list.addObject();
      s.put("name", e.name());
      s.put("kind", e.kind());
      s.put("parent", e.parent());
      s.put("action", e.action());
      s.put("status", e.status().name());
      s.put("attempt", e.attempt());
      time(s, "startedAt", e.startedAt());
      time(s, "finishedAt", e.finishedAt());
      s.set("output", e.output());
      if (e.errorCode() == null && e.errorReason() == null) {
        s.putNull("error");
      } else {
        ObjectNode err = s.putObject("error");
        err.put("code", e.errorCode());
        err.put("reason", e.errorReason());
      }
      if (e.chosen() != null) {
        s.put("chosen", e.chosen());
      }
      if (e.late() != null) {
        s.set("late", e.late());
      }
      s.put("commandMessageId", e.commandMessageId() == null ? null : e.commandMessageId().toString());
    }
    return o;
  }

  static ObjectNode list(List<InstanceRecord> instances) {
    ObjectNode o = Json.object();
    ArrayNode items = o.putArray("items");
    instances.forEach(i -> items.add(summary(i)));
    o.put("count", instances.size());
    return o;
  }

  static ObjectNode error(String code, String message) {
    ObjectNode o = Json.object();
    o.put("error", code);
    o.put("message", message);
    return o;
  }

  private static void time(ObjectNode o, String field, Instant t) {
    if (t == null) {
      o.putNull(field);
    } else {
      o.put(field, t.toString());
    }
  }
}
