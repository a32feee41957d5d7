package dev.baton.runtime.relay;

import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.LimitStore.Limit;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.QueuedCommand;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;

/**
 * When the relay reserves the rows of each limited command (docs/design.md#concurrency-limits), and which. A limited
 * command is due when one of its commands was handed over since, at the ordinary poll, and, while its capacity is
 * used up with rows waiting, every {@link #SHORT_POLL_NANOS}: capacity is given back by steps ending in any replica,
 * which do not tell this one, so waiting rows go out within that of a slot freeing instead of at the next poll.
 *
 * <p>Which rows: while none of the command waits for capacity, the commands this runtime wrote are its oldest due
 * rows here, and they are reserved by their ids, as the relay claims unlimited ones; once some wait, or a poll has
 * passed (rows of another replica may be due), the command's rows older than the first of those ids are searched for
 * until a search finds no more, so that the rest go out in order. Without limits nothing here runs.
 */
final class LimitedClaims {

  /** How often a limited command whose capacity is used up, with rows waiting, is claimed again. */
  static final long SHORT_POLL_NANOS = 20_000_000L;

  /** Reserves rows of a limited command in a transaction of its own ({@link LimitStore#reserve}). */
  @FunctionalInterface
  interface Reservations {
    LimitStore.Claimed reserve(Limit limit, int room, List<Long> ids, long below) throws SQLException;
  }

  /**
   * What to reserve of a limited command now: its rows of {@code ids}, or (none given) its oldest below {@code below},
   * the first of the ids still to reserve by id (rows older than that are not among them).
   */
  record Ask(List<Long> ids, long below) {
    boolean oldest() {
      return ids.isEmpty();
    }
  }

  private final Reservations reservations;
  private final LongSupplier nanoClock;
  private final long pollNanos;
  /** The limits, by "exchange routing-key". */
  private volatile Map<String, Limit> limits = Map.of();
  /** When each is due (0: now). */
  private final Map<String, Long> dueAt = new ConcurrentHashMap<>();
  /** How many ids of one command are kept to reserve by id; beyond, the oldest are left to the search. */
  static final int MAX_WRITTEN = 10_000;
  /** The ids of each one's commands this runtime wrote and has not reserved yet, in commit order. */
  private final Map<String, Queue<Long>> written = new ConcurrentHashMap<>();
  /** When each one's oldest rows were last searched for. */
  private final Map<String, Long> searchedAt = new ConcurrentHashMap<>();
  /** Those with rows waiting for capacity, or that may have: their oldest go first. */
  private final Set<String> waiting = ConcurrentHashMap.newKeySet();

  LimitedClaims(Reservations reservations, long pollNanos, LongSupplier nanoClock) {
    this.reservations = reservations;
    this.pollNanos = pollNanos;
    this.nanoClock = nanoClock;
  }

  private static String key(String exchange, String routingKey) {
    return exchange + " " + routingKey;
  }

  private static String key(Limit l) {
    return key(l.exchange(), l.routingKey());
  }

  /** The limits as they are now (any thread); a new one is due at once, with a search: rows of it may wait. */
  void limits(List<Limit> now) {
    Map<String, Limit> byKey = new ConcurrentHashMap<>();
    for (Limit l : now) {
      byKey.put(key(l), l);
    }
    dueAt.keySet().retainAll(byKey.keySet());
    written.keySet().retainAll(byKey.keySet());
    searchedAt.keySet().retainAll(byKey.keySet());
    waiting.retainAll(byKey.keySet());
    byKey.keySet().forEach(k -> {
      if (dueAt.putIfAbsent(k, 0L) == null) {
        waiting.add(k);
      }
    });
    limits = byKey;
  }

  /** Whether the message's command has a limit (any thread). */
  boolean isLimited(OutboxMessage message) {
    Map<String, Limit> current = limits;
    return !current.isEmpty() && current.containsKey(key(message.exchange(), message.routingKey()));
  }

  /** A command was handed over (any thread): if its command is limited, it is kept to reserve and due at once. */
  void handedOver(QueuedCommand command) {
    if (!isLimited(command.message())) {
      return;
    }
    String k = key(command.message().exchange(), command.message().routingKey());
    Queue<Long> mine = written.computeIfAbsent(k, x -> new ConcurrentLinkedQueue<>());
    mine.add(command.outboxId());
    if (mine.size() > MAX_WRITTEN) {
      mine.poll(); // older than the rest: a search below the first kept finds it
    }
    dueAt.computeIfPresent(k, (x, v) -> 0L);
  }

  boolean anyDue() {
    if (limits.isEmpty()) {
      return false;
    }
    long now = nanoClock.getAsLong();
    return dueAt.values().stream().anyMatch(t -> t - now <= 0);
  }

  /** Milliseconds until the next limited command is due, at most {@code max}. */
  long millisUntilDue(long max) {
    if (limits.isEmpty()) {
      return max;
    }
    long now = nanoClock.getAsLong();
    long soonest = dueAt.values().stream().mapToLong(t -> t - now).min().orElse(Long.MAX_VALUE);
    return Math.max(0, Math.min(max, soonest / 1_000_000L));
  }

  /**
   * Reserves up to {@code room} rows of the limited commands that are due, each in a transaction of its own; the
   * caller's batch then claims them by id.
   */
  List<OutboxRow> reserve(int room) throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    for (Map.Entry<String, Limit> e : limits.entrySet()) {
      Long due = dueAt.get(e.getKey());
      long now = nanoClock.getAsLong();
      if (rows.size() >= room || due == null || due - now > 0) {
        continue;
      }
      Limit limit = e.getValue();
      claiming(limit);
      Ask ask = ask(limit, room - rows.size(), now);
      if (ask == null) {
        continue;
      }
      LimitStore.Claimed claimed = reservations.reserve(limit, room - rows.size(), ask.ids(), ask.below());
      rows.addAll(claimed.rows());
      reserved(limit, ask, claimed);
    }
    return rows;
  }

  /** What to reserve of the due command now, at most {@code room}; null when nothing. */
  Ask ask(Limit limit, int room, long now) {
    String k = key(limit);
    Queue<Long> mine = written.getOrDefault(k, new ConcurrentLinkedQueue<>());
    Long searched = searchedAt.get(k);
    if (waiting.contains(k) || searched == null || now - searched >= pollNanos) {
      searchedAt.put(k, now);
      Long first = mine.peek();
      return new Ask(List.of(), first == null ? Long.MAX_VALUE : first);
    }
    List<Long> ids = new ArrayList<>(Math.min(room, mine.size()));
    Long id;
    while (ids.size() < room && (id = mine.poll()) != null) {
      ids.add(id);
    }
    return ids.isEmpty() ? null : new Ask(ids, Long.MAX_VALUE);
  }

  /** After a reservation: whether rows of the command wait, and when it is due again. */
  void reserved(Limit limit, Ask ask, LimitStore.Claimed claimed) {
    String k = key(limit);
    if (ask.oldest()) {
      if (!claimed.saturated() && !claimed.full()) {
        waiting.remove(k); // none older than the ids to reserve is due: those go by id from now on
      }
    } else if (claimed.rows().size() < ask.ids().size()) {
      waiting.add(k); // some of those asked for were not taken: a search below the rest finds them, in order
    }
    Queue<Long> mine = written.get(k);
    if (claimed.full() || (mine != null && !mine.isEmpty())) {
      dueAt.replace(k, nanoClock.getAsLong()); // more may be due at once, as an ordinary full claim says
    } else if (claimed.saturated()) {
      waiting.add(k);
      saturated(limit);
    }
  }

  /** A claim of the limited command begins: next due at the poll, unless one is handed over meanwhile. */
  void claiming(Limit limit) {
    dueAt.replace(key(limit), nanoClock.getAsLong() + pollNanos);
  }

  /** Its capacity is used up with rows waiting: due again soon. */
  void saturated(Limit limit) {
    long soon = nanoClock.getAsLong() + SHORT_POLL_NANOS;
    dueAt.computeIfPresent(key(limit), (k, t) -> t - soon > 0 ? soon : t);
  }
}
