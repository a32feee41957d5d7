package dev.baton.runtime.store;

/**
 * A command its transaction queued in the outbox: the row's id and what it holds. Handed to the relay once the
 * transaction has committed, so that it claims the row by its id and publishes the message it already has, instead of
 * searching the outbox and reading the row back.
 */
public record QueuedCommand(long outboxId, OutboxMessage message) {}
