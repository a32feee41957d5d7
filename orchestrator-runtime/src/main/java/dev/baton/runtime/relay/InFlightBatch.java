package dev.baton.runtime.relay;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Claimed rows on their own transaction, published, waiting for their outcomes. Committed or rolled back once, which
 * also gives its database connection back.
 */
final class InFlightBatch {
  final Connection connection;
  final List<BatchEntry> entries = new ArrayList<>();
  /**
   * The ids of every row its transaction has claimed (published or set aside): a claim by id in the same transaction
   * returns them again, as FOR UPDATE SKIP LOCKED skips only the rows other transactions hold.
   */
  final Set<Long> held = new HashSet<>();
  int claimed;
  /** The publisher's channel generation its messages were published in. */
  long generation;
  /** Publishing stopped at a failure: the entries after it were not sent. */
  boolean stopped;
  /** Its transaction marked commands refused: the engine is told once it has committed. */
  boolean refused;
  /** When its first message was published ({@link System#nanoTime}); 0 before. */
  long publishedNanos;
  private boolean closed;

  InFlightBatch(Connection connection) {
    this.connection = connection;
  }

  /** How long it has held its rows since it published. */
  long heldMillis() {
    return publishedNanos == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - publishedNanos);
  }

  /** Whether it has waited for its confirms, rows locked, for longer than {@link OutboxRelay#HOLD_AT_MOST}. */
  boolean heldTooLong() {
    return !answered() && heldMillis() >= OutboxRelay.HOLD_AT_MOST.toMillis();
  }

  /** Whether the broker has answered for every message it was sent (a batch that stopped early never is). */
  boolean answered() {
    return !stopped && entries.stream().allMatch(e -> e.result != null && e.result.isDone());
  }

  /**
   * Whether its channel failed under it: publishing stopped, a message failed, or the channel's generation ended
   * with messages still waiting (they are about to fail). Newer batches wait until it is finished.
   */
  boolean hasFailure(long currentGeneration) {
    return stopped || entries.stream().anyMatch(e -> e.result != null
        && (e.failedAlready() || !e.result.isDone() && currentGeneration != generation));
  }

  void commit() throws SQLException {
    try {
      connection.commit();
    } finally {
      close();
    }
  }

  void rollback() {
    try {
      if (!closed) {
        connection.rollback();
      }
    } catch (SQLException ignored) {
      // the connection is closed next; the locks go with the transaction
    } finally {
      close();
    }
  }

  private void close() {
    if (!closed) {
      closed = true;
      try {
        connection.close();
      } catch (SQLException ignored) {
        // back to the pool or gone
      }
    }
  }
}
