package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.runtime.json.Json;
import dev.baton.runtime.store.OutboxMessage;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Builds the command of a dispatch as docs/design.md#message-contract specifies it, ready for the outbox. */
public final class CommandComposer {

  /** What the command is about: the instance and the dispatch. */
  public record Subject(UUID instanceId, String namespace, String businessKey, WorkflowDefinition definition,
      StepDefinition step, Phase phase, int attempt) {}

  /**
   * @param input the instance input
   * @param outputs the outputs of the steps completed so far, by step name
   */
  public OutboxMessage compose(UUID messageId, Subject s, ObjectNode input, ObjectNode outputs) {
    WorkflowDefinition d = s.definition();
    String action = s.step().actionFor(s.phase());
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put(Headers.WORKFLOW, d.name());
    headers.put(Headers.NAMESPACE, s.namespace());
    headers.put(Headers.REVISION, d.revision());
    headers.put(Headers.INSTANCE, s.instanceId().toString());
    headers.put(Headers.STEP, s.step().name());
    headers.put(Headers.ATTEMPT, s.attempt());
    headers.put(Headers.ENTITY, d.entity());
    headers.put(Headers.ACTION, action);
    headers.put(Headers.RETRIES, 0);
    if (s.step().timeout() != null) {
      headers.put(Headers.STEP_TIMEOUT, s.step().timeout().toMillis()); // workers bound their handlers by it
    }

    ObjectNode body = Json.object();
    body.put("instanceId", s.instanceId().toString());
    body.put("workflow", d.name());
    body.put("step", s.step().name());
    body.put("attempt", s.attempt());
    body.put("businessKey", s.businessKey());
    body.set("input", mergedInput(d, input, outputs));
    body.set("outputs", outputs);

    String service = s.step().service();
    return new OutboxMessage(messageId, Names.commandExchange(service),
        Names.commandRoutingKey(service, s.step().commandFor(s.phase())), s.instanceId().toString(),
        Json.write(headers), Json.writeBytes(body));
  }

  /** The instance input, shallow-merged with each earlier step's output object, in step order (later wins). */
  static ObjectNode mergedInput(WorkflowDefinition d, ObjectNode input, ObjectNode outputs) {
    ObjectNode merged = input.deepCopy();
    for (StepDefinition step : d.steps()) {
      JsonNode out = outputs.get(step.name());
      if (out instanceof ObjectNode o) {
        merged.setAll(o);
      }
    }
    return merged;
  }
}
