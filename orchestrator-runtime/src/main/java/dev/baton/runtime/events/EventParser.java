package dev.baton.runtime.events;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.AMQP;
import dev.baton.api.json.Json;
import dev.baton.contract.EventResult;
import dev.baton.contract.Headers;
import dev.baton.runtime.core.InboundEvent;
import dev.baton.runtime.core.StateMachine;
import java.io.IOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * Reads an event as docs/design.md#message-contract defines it: the result is the last word of the routing key, the rest comes from
 * the copied {@code baton-*} headers (the instance also from {@code correlation_id}) and the JSON body. Anything that
 * does not fit is {@link ParsedDelivery.Malformed} with a reason a person can act on.
 */
final class EventParser {

  /** The largest event body the runtime reads: an output beyond it could not be kept and carried on anyway. */
  static final int MAX_EVENT_BYTES = 64 * 1024 * 1024;

  private EventParser() {}

  /** @param exchange the exchange it came through (its delivery's) */
  static ParsedDelivery parse(String queueWorkflow, String exchange, String routingKey, AMQP.BasicProperties props,
      byte[] body) {
    Map<String, Object> headers = props.getHeaders() == null ? Map.of() : props.getHeaders();
    String workflow = Headers.text(headers.get(Headers.WORKFLOW));
    if (workflow == null) {
      return malformed("header " + Headers.WORKFLOW + " is missing");
    }
    if (!workflow.equals(queueWorkflow)) {
      return new ParsedDelivery.Foreign(workflow);
    }
    if (!Headers.isJsonContentType(props.getContentType())) {
      return malformed("content_type '" + props.getContentType() + "' is not " + Headers.CONTENT_TYPE_JSON);
    }
    Optional<EventResult> result = EventResult.fromRoutingKey(routingKey);
    if (result.isEmpty()) {
      return malformed("routing key '" + routingKey + "' does not end in "
          + Arrays.stream(EventResult.values()).map(EventResult::key).collect(Collectors.joining(", ")));
    }
    String messageId = props.getMessageId();
    if (messageId == null || messageId.isBlank()) {
      return malformed("property message_id is missing");
    }
    String instanceText = Headers.text(headers.get(Headers.INSTANCE));
    if (instanceText == null) {
      instanceText = props.getCorrelationId();
    }
    if (instanceText == null) {
      return malformed("header " + Headers.INSTANCE + " and correlation_id are both missing");
    }
    UUID instanceId;
    try {
      instanceId = UUID.fromString(instanceText);
    } catch (IllegalArgumentException e) {
      return malformed("instance id '" + instanceText + "' is not a UUID");
    }
    String step = Headers.text(headers.get(Headers.STEP));
    if (step == null) {
      return malformed("header " + Headers.STEP + " is missing");
    }
    String action = Headers.text(headers.get(Headers.ACTION));
    if (action == null) {
      return malformed("header " + Headers.ACTION + " is missing");
    }
    Integer attempt = integer(headers.get(Headers.ATTEMPT));
    if (attempt == null) {
      return malformed("header " + Headers.ATTEMPT + " is missing or not a number");
    }
    String namespace = Headers.text(headers.get(Headers.NAMESPACE));
    Map<String, String> context = contextOf(headers);
    if (body != null && body.length > MAX_EVENT_BYTES) {
      // Too large to keep in a step's row and carry in the commands after it: the worker answered, so the step ends,
      // as an unknown outcome, without reading the body.
      return new ParsedDelivery.Event(new InboundEvent(messageId, workflow, namespace, instanceId, step, attempt,
          action, EventResult.ERROR, null, StateMachine.UNSTORABLE_OUTPUT, "the worker answered " + result.get().key()
          + " with a body of " + body.length + " bytes, over the limit of " + MAX_EVENT_BYTES, exchange, context));
    }
    JsonNode json;
    try {
      json = body == null || body.length == 0 ? Json.object() : Json.MAPPER.readTree(body);
    } catch (JsonProcessingException e) {
      return malformed("body is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      return malformed("body cannot be read: " + e.getMessage());
    }
    if (json == null || !json.isObject()) {
      return malformed("body is not a JSON object");
    }
    JsonNode output = json.get("output");
    String errorCode = json.hasNonNull("errorCode") ? json.get("errorCode").asText() : null;
    String reason = json.hasNonNull("reason") ? json.get("reason").asText() : null;
    if (result.get() != EventResult.SUCCESS && reason == null) {
      reason = "(no reason given)";
    }
    String unstorable = holdsNul(output) ? "output" : holdsNul(errorCode) ? "errorCode" : holdsNul(reason) ? "reason"
        : null;
    if (unstorable != null) {
      // PostgreSQL stores no NUL in text or jsonb: parked, the event would leave its step waiting for ever. The worker
      // did answer, so the step ends, as an unknown outcome (compensated when it declares a compensation).
      return new ParsedDelivery.Event(new InboundEvent(messageId, workflow, namespace, instanceId, step, attempt,
          action, EventResult.ERROR, null, StateMachine.UNSTORABLE_OUTPUT, "the worker answered " + result.get().key()
          + " with a NUL character (\\u0000) in its " + unstorable + ", which cannot be stored", exchange, context));
    }
    return new ParsedDelivery.Event(new InboundEvent(messageId, workflow, namespace, instanceId, step, attempt, action,
        result.get(), result.get() == EventResult.SUCCESS ? output : null, errorCode, reason, exchange, context));
  }

  /**
   * The headers where a propagator may find the worker's trace context and baggage: the text ones other than Baton's
   * own (which propagators are configured is the runtime's business, not the parser's).
   */
  private static Map<String, String> contextOf(Map<String, Object> headers) {
    Map<String, String> context = new java.util.HashMap<>();
    headers.forEach((name, value) -> {
      if (!name.startsWith(Headers.BATON_PREFIX) && value != null && !(value instanceof Number)
          && !(value instanceof Map) && !(value instanceof List)) {
        context.put(name, value.toString());
      }
    });
    return context;
  }

  private static boolean holdsNul(String text) {
    return text != null && text.indexOf('\0') >= 0;
  }

  /** Whether a JSON value holds a NUL character in any text or field name. */
  private static boolean holdsNul(JsonNode node) {
    if (node == null) {
      return false;
    }
    if (node.isTextual()) {
      return holdsNul(node.textValue());
    }
    for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
      Map.Entry<String, JsonNode> field = fields.next();
      if (holdsNul(field.getKey()) || holdsNul(field.getValue())) {
        return true;
      }
    }
    for (JsonNode element : node.isArray() ? node : List.<JsonNode>of()) {
      if (holdsNul(element)) {
        return true;
      }
    }
    return false;
  }

  private static ParsedDelivery malformed(String reason) {
    return new ParsedDelivery.Malformed(reason);
  }

  /** Integers arrive as Integer, Long, Short or Byte from typed clients, as text from others. */
  private static Integer integer(Object value) {
    if (value instanceof Number n) {
      return n.intValue();
    }
    String s = Headers.text(value);
    if (s == null) {
      return null;
    }
    try {
      return Integer.parseInt(s.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
