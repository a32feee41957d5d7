package dev.baton.runtime.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import java.util.UUID;

/**
 * A message waiting in the outbox. Its {@code messageId} is fixed when the row is written, so every re-send after a
 * crash carries the same id and workers can dedupe.
 *
 * @param headersJson the AMQP headers as a JSON object
 */
public record OutboxMessage(UUID messageId, String exchange, String routingKey, String correlationId,
    String headersJson, byte[] body) {

  /**
   * An instance's outcome event rather than a step's command (docs/message-contract.md#instance-outcomes): it belongs
   * to no attempt, so no withdrawal takes it back and a refusal of it fails nothing, and it is published without the
   * mandatory flag (an outcome nobody subscribed to is simply not routed).
   */
  public boolean isInstanceOutcome() {
    return Names.instanceOutcomeExchange().equals(exchange);
  }

  /** The same message with another {@code baton-deadline} (a command whose step's timer was parked). */
  public OutboxMessage withDeadline(long epochMillis) {
    try {
      ObjectNode headers = (ObjectNode) Json.MAPPER.readTree(headersJson);
      headers.put(Headers.DEADLINE, epochMillis);
      return new OutboxMessage(messageId, exchange, routingKey, correlationId, Json.MAPPER.writeValueAsString(headers),
          body);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("the outbox holds headers that are not a JSON object", e);
    }
  }
}
