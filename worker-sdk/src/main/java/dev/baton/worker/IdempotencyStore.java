package dev.baton.worker;

import java.util.Optional;

/**
 * Remembers the outcome of every message a worker has handled, so that a duplicate delivery (a redelivery after a
 * crash, a command the orchestrator sent again) is answered with the same event instead of running the handler a
 * second time.
 *
 * <p>Keys: a command's {@code message_id}; for a subscription, {@code <subscription>:<message_id>} (one event may
 * reach several subscriptions of a service, and each must handle it once). Messages without a {@code message_id}
 * are not deduplicated.
 *
 * <p>The SDK calls {@link #find} before the handler and {@link #remember} after it returned an outcome, and never
 * remembers a technical failure (that is retried, and a dead letter replayed later must run again).
 *
 * <p><b>Exactly-once effects across worker crashes</b> need more than memory: the outcome has to be written in the
 * same database transaction as the handler's effect, otherwise a crash between the two either loses the record or
 * the effect. {@link JdbcIdempotencyStore} does that over your own database (its {@code transactional} handler).
 *
 * <p>Implementations must be thread-safe: handlers of several queues and channels call them concurrently.
 */
public interface IdempotencyStore {

  /** The outcome remembered for this key, if any. */
  Optional<CommandResult> find(String key);

  /** Remembers an outcome; a key already remembered keeps its first outcome. */
  void remember(String key, CommandResult outcome);

  /**
   * A bounded in-memory store that forgets the least recently used keys beyond {@code capacity}. It protects against
   * redeliveries while this process lives (a publish the broker did not confirm, a channel that closed after the
   * handler ran), not across restarts.
   */
  static IdempotencyStore inMemory(int capacity) {
    return new InMemoryIdempotencyStore(capacity);
  }

  /** Remembers nothing: every delivery runs the handler. */
  static IdempotencyStore none() {
    return NoIdempotencyStore.INSTANCE;
  }
}
