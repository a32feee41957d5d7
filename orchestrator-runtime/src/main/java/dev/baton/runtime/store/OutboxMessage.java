package dev.baton.runtime.store;

import java.util.UUID;

/**
 * A message waiting in the outbox. Its {@code messageId} is fixed when the row is written, so every re-send after a
 * crash carries the same id and workers can dedupe.
 *
 * @param headersJson the AMQP headers as a JSON object
 */
public record OutboxMessage(UUID messageId, String exchange, String routingKey, String correlationId,
    String headersJson, byte[] body) {}
