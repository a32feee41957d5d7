package dev.baton.runtime.relay;

import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the broker blocks the relay's connection (a memory or disk alarm), as the connection says
 * ({@code connection.blocked}); either way the relay's thread is woken up to act on it.
 */
final class BrokerBlock {

  /** The relay's own logger: what it reports is found under one name. */
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final Runnable wakeUp;
  /** The broker's reason while it blocks the relay's connection (a memory or disk alarm); null otherwise. */
  private volatile String blockedBy;
  private final BlockedListener blockedListener = new BlockedListener() {
    @Override
    public void handleBlocked(String reason) {
      blockedBy = reason == null || reason.isBlank() ? "blocked" : reason;
      LOG.warn("The broker blocks the outbox relay's connection ({}): nothing is claimed until it lets go, and the"
          + " batches in flight let go of their rows", blockedBy);
      wakeUp.run();
    }

    @Override
    public void handleUnblocked() {
      unblocked();
    }
  };
  /** A connection that goes down forgets its block: a new one is blocked again only if the alarm still holds. */
  private final ShutdownListener unblockOnShutdown = cause -> unblocked();

  BrokerBlock(Runnable wakeUp) {
    this.wakeUp = wakeUp;
  }

  private void unblocked() {
    if (blockedBy != null) {
      LOG.info("The broker no longer blocks the outbox relay's connection");
    }
    blockedBy = null;
    wakeUp.run();
  }

  void listenTo(Connection connection) {
    connection.addBlockedListener(blockedListener);
    connection.addShutdownListener(unblockOnShutdown);
  }

  void stopListening(Connection connection) {
    connection.removeBlockedListener(blockedListener);
    connection.removeShutdownListener(unblockOnShutdown);
  }

  boolean blocked() {
    return blockedBy != null;
  }

  /** The broker's reason while it blocks the connection; null otherwise. */
  String reason() {
    return blockedBy;
  }
}
