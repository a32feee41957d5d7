package dev.baton.runtime.relay;

import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.LimitStore.Limit;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * When the relay claims the rows of each limited command (docs/design.md#concurrency-limits), and the claims. A
 * limited command is claimed when one of its commands was handed over since, at the ordinary poll (rows of other
 * replicas), and, while its capacity is used up with rows waiting, every {@link #SHORT_POLL_NANOS}: capacity is given
 * back by steps ending in any replica, which do not tell this one, so waiting rows go out within that of a slot
 * freeing instead of at the next poll. Without limits nothing here runs.
 */
final class LimitedClaims {

  /** How often a limited command whose capacity is used up, with rows waiting, is claimed again. */
  static final long SHORT_POLL_NANOS = 20_000_000L;

  private final LimitStore store = new LimitStore();
  private final LongSupplier nanoClock;
  private final long pollNanos;
  /** The limits, by "exchange routing-key", each with when it is due (0: now). */
  private volatile Map<String, Limit> limits = Map.of();
  private final Map<String, Long> dueAt = new ConcurrentHashMap<>();

  LimitedClaims(long pollNanos, LongSupplier nanoClock) {
    this.pollNanos = pollNanos;
    this.nanoClock = nanoClock;
  }

  private static String key(String exchange, String routingKey) {
    return exchange + " " + routingKey;
  }

  /** The limits as they are now (any thread); a new one is due at once. */
  void limits(List<Limit> now) {
    Map<String, Limit> byKey = new ConcurrentHashMap<>();
    for (Limit l : now) {
      byKey.put(key(l.exchange(), l.routingKey()), l);
    }
    dueAt.keySet().retainAll(byKey.keySet());
    byKey.keySet().forEach(k -> dueAt.putIfAbsent(k, 0L));
    limits = byKey;
  }

  /** A command was handed over (any thread): if its command is limited, it is due at once. */
  void handedOver(OutboxMessage message) {
    if (!limits.isEmpty()) {
      dueAt.computeIfPresent(key(message.exchange(), message.routingKey()), (k, v) -> 0L);
    }
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

  /** Claims, in the batch's transaction, up to {@code room} rows of the limited commands that are due. */
  List<OutboxRow> claim(Connection c, int room) throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    long now = nanoClock.getAsLong();
    for (Map.Entry<String, Limit> e : limits.entrySet()) {
      Long due = dueAt.get(e.getKey());
      if (rows.size() >= room || due == null || due - now > 0) {
        continue;
      }
      claiming(e.getValue());
      LimitStore.Claimed claimed = store.claimWithin(c, e.getValue(), room - rows.size());
      rows.addAll(claimed.rows());
      if (claimed.full()) {
        dueAt.replace(e.getKey(), now); // a full claim: more may be due, as an ordinary full claim says
      } else if (claimed.saturated()) {
        saturated(e.getValue());
      }
    }
    return rows;
  }

  /** A claim of the limited command begins: next due at the poll, unless one is handed over meanwhile. */
  void claiming(Limit limit) {
    dueAt.replace(key(limit.exchange(), limit.routingKey()), nanoClock.getAsLong() + pollNanos);
  }

  /** Its capacity is used up with rows waiting, or another claim held it: due again soon. */
  void saturated(Limit limit) {
    long soon = nanoClock.getAsLong() + SHORT_POLL_NANOS;
    dueAt.computeIfPresent(key(limit.exchange(), limit.routingKey()), (k, t) -> t - soon > 0 ? soon : t);
  }
}
