package dev.baton.runtime.relay;

import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.QueuedCommand;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The commands handed over at their commit, in commit order, not claimed yet (any thread hands over, the relay's
 * thread takes), and their claim by id: the relay publishes the messages it was handed without searching the outbox
 * or reading them back.
 */
final class HandedCommands {

  /** A command handed over, and when its transaction committed. */
  record Handed(QueuedCommand command, long committedMillis) {}

  private final OutboxStore store;
  private final LimitedClaims limited;
  private final ConcurrentLinkedQueue<Handed> handed = new ConcurrentLinkedQueue<>();
  private final AtomicInteger handedCount = new AtomicInteger();
  /** How many commands the last {@link #claimNext} took from the hand (the relay's thread only). */
  private int handedTaken;

  HandedCommands(OutboxStore store, LimitedClaims limited) {
    this.store = store;
    this.limited = limited;
  }

  /** How many are in hand. */
  int count() {
    return handedCount.get();
  }

  /**
   * Takes a commit's commands in hand (any thread).
   *
   * @return false when that would make more than {@value OutboxRelay#MAX_HANDED}: none taken, the search finds them
   */
  boolean handOver(List<QueuedCommand> commands) {
    if (handedCount.get() + commands.size() > OutboxRelay.MAX_HANDED) {
      return false;
    }
    long now = System.currentTimeMillis();
    for (QueuedCommand command : commands) {
      handed.add(new Handed(command, now));
      limited.handedOver(command.message()); // its claim by id skips it if its command is limited
    }
    handedCount.addAndGet(commands.size());
    return true;
  }

  /**
   * Claims up to {@code limit} of the commands in hand by their ids, in commit order, in the transaction of {@code c};
   * those no longer there or due (published by a search, withdrawn, set aside) or held by another transaction are
   * dropped: whoever has them sees them through, and so are those the transaction holds already ({@code held}: found
   * by its search before they were handed over). How many were taken from the hand is left in {@link #lastTaken}.
   */
  List<OutboxRow> claimNext(Connection c, int limit, Set<Long> held) throws SQLException {
    List<Handed> taken = new ArrayList<>(Math.min(limit, handedCount.get()));
    Handed h;
    while (taken.size() < limit && (h = handed.poll()) != null) {
      handedCount.decrementAndGet();
      taken.add(h);
    }
    handedTaken = taken.size();
    return claim(c, taken, held);
  }

  /** How many commands the last {@link #claimNext} took from the hand (the relay's thread only). */
  int lastTaken() {
    return handedTaken;
  }

  /**
   * Locks those of the commands that are still there, due and free to claim, in the transaction of {@code c}, and
   * adds them to {@code held}; the rows in their order. Those it holds already are left out.
   */
  List<OutboxRow> claim(Connection c, List<Handed> taken, Set<Long> held) throws SQLException {
    taken.removeIf(t -> held.contains(t.command().outboxId()));
    if (taken.isEmpty()) {
      return List.of();
    }
    List<Long> ids = new ArrayList<>(taken.size());
    for (Handed t : taken) {
      ids.add(t.command().outboxId());
    }
    Set<Long> locked = store.claimById(c, ids);
    List<OutboxRow> rows = new ArrayList<>(locked.size());
    for (Handed t : taken) {
      if (locked.contains(t.command().outboxId())) {
        rows.add(new OutboxRow(t.command().outboxId(), t.command().message(), Instant.ofEpochMilli(t.committedMillis()),
            0));
      }
    }
    return rows;
  }

  /** After a failure: the commands in hand are left to the next search. */
  void drop() {
    while (handed.poll() != null) {
      handedCount.decrementAndGet();
    }
  }
}
