package dev.baton.runtime.store;

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
}
