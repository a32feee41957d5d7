package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.EventResult;
import java.util.Map;
import java.util.UUID;

/**
 * A worker's event, parsed and checked for shape (docs/design.md#message-contract).
 *
 * @param namespace the {@code baton-namespace} header, or null when the worker did not copy it
 * @param output the body's {@code output} (success), or null
 * @param exchange the exchange it came through
 * @param context the headers that may carry the worker's trace context and baggage (its text headers other than
 *     {@code baton-*}: the runtime's propagators pick theirs), empty when none
 */
public record InboundEvent(
    String messageId,
    String workflow,
    String namespace,
    UUID instanceId,
    String step,
    int attempt,
    String action,
    EventResult result,
    JsonNode output,
    String errorCode,
    String reason,
    String exchange,
    Map<String, String> context) {

  public InboundEvent {
    context = context == null ? Map.of() : Map.copyOf(context);
  }

  /** An event without trace context. */
  public InboundEvent(String messageId, String workflow, String namespace, UUID instanceId, String step, int attempt,
      String action, EventResult result, JsonNode output, String errorCode, String reason) {
    this(messageId, workflow, namespace, instanceId, step, attempt, action, result, output, errorCode, reason, null,
        Map.of());
  }

  /** The worker's span as a W3C {@code traceparent} header, or null. */
  public String traceparent() {
    return context.get("traceparent");
  }
}
