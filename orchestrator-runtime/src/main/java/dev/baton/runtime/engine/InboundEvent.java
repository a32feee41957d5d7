package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.contract.EventResult;
import java.util.UUID;

/**
 * A worker's event, parsed and checked for shape (docs/design.md#message-contract).
 *
 * @param namespace the {@code baton-namespace} header, or null when the worker did not copy it
 * @param output the body's {@code output} (success), or null
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
    String reason) {}
