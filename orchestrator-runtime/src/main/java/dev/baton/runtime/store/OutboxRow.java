package dev.baton.runtime.store;

import java.time.Instant;

/** An outbox row claimed by the relay. */
public record OutboxRow(long id, OutboxMessage message, Instant createdAt, int attempts) {}
