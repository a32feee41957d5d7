package dev.baton.runtime.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.httpapi.AuditEntry;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.LastError;
import dev.baton.httpapi.StepDocument;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.StepStatus;
import dev.baton.runtime.store.AuditRow;
import dev.baton.runtime.store.InstanceRecord;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** Instances as the API shows them: the runtime's rows into the documents of {@link InstanceDocument}. */
final class InstanceJson {

  private InstanceJson() {}

  /** The list form: everything but the step history, input, outputs and audit. */
  static InstanceDocument summary(InstanceRecord i) {
    return document(i, null, null, null, null);
  }

  /**
   * The full form: with input, the outputs by step, every attempt of every step and every audited action, oldest
   * first.
   */
  static InstanceDocument detail(InstanceRecord i, List<StepState> steps, List<AuditRow> audit) {
    ObjectNode outputs = Json.object();
    List<StepDocument> list = new ArrayList<>(steps.size());
    for (StepState e : steps) {
      // An iteration's steps are not listed by name: the map's output lists them, in item order.
      if (!e.isCompensation() && e.iteration() < 0 && e.status() == StepStatus.SUCCEEDED && e.output() != null) {
        outputs.set(e.name(), e.output());
      }
      list.add(new StepDocument(e.name(), e.kind(), e.parent(), e.action(), e.status().name(), e.attempt(),
          e.startedAt(), e.finishedAt(), e.output(),
          e.errorCode() == null && e.errorReason() == null ? null
              : new StepDocument.StepError(e.errorCode(), e.errorReason()),
          e.chosen(), e.late(), e.commandMessageId() == null ? null : e.commandMessageId().toString(),
          e.items() == null ? null : e.items().size()));
    }
    List<AuditEntry> entries = audit.stream()
        .map(a -> new AuditEntry(a.action(), a.user(), a.at(), a.source(), a.detail())).toList();
    return document(i, Json.read(i.inputJson()), outputs, list, entries);
  }

  private static InstanceDocument document(InstanceRecord i, JsonNode input,
      ObjectNode outputs, List<StepDocument> steps, List<AuditEntry> audit) {
    return new InstanceDocument(i.id().toString(), i.namespace(), i.workflow(), i.revision(), i.businessKey(),
        MessageTracing.traceIdOf(i.traceparent()), i.status().name(), i.phase().name(), i.stepName(), i.attempt(),
        i.stepStartedAt(), i.stepDeadline(), i.deadline(), lastError(i.lastErrorJson()), i.createdAt(),
        i.updatedAt(), i.finishedAt(), i.createdBy(), input, outputs, steps, audit);
  }

  /** The instance's last error as the engine recorded it (a JSON column), or null. */
  private static LastError lastError(String json) {
    if (json == null) {
      return null;
    }
    try {
      return Json.MAPPER.readValue(json, LastError.class);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
