package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.EventResult;
import java.util.UUID;

/**
 * A worker's event, parsed and checked for shape (docs/design.md#message-contract).
 *
 * @param namespace the {@code baton-namespace} header, or null when the worker did not copy it
 * @param output the body's {@code output} (success), or null
 * @param traceparent the worker's span ({@code traceparent} header), or null
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
    String traceparent) {

  /** An event without trace context. */
  public InboundEvent(String messageId, String workflow, String namespace, UUID instanceId, String step, int attempt,
      String action, EventResult result, JsonNode output, String errorCode, String reason) {
    this(messageId, workflow, namespace, instanceId, step, attempt, action, result, output, errorCode, reason, null);
  }
}
