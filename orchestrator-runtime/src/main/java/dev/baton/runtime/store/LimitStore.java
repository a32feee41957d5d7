package dev.baton.runtime.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code command_limit} and {@code command_slot}: the commands with a {@code maxInFlight} and the ones of them
 * dispatched and not over yet (docs/design.md#concurrency-limits). The relay's ordinary claims skip a limited
 * command's rows ({@link #NOT_LIMITED}); {@link #reserve} reserves them within the capacity left, in outbox order,
 * holding the limit's row for a short transaction of its own so that no other claim (another batch, another replica)
 * hands out the same capacity, and the batch that publishes them claims them by id. The limit is not held while a
 * batch waits for its confirms: batches of a limited command overlap as any others do.
 */
public final class LimitStore {

  /** A command's limit as the resources say it. */
  public record Limit(String exchange, String routingKey, String namespace, String service, String command,
      int maxInFlight) {}

  /**
   * What a reservation within a limit took.
   *
   * @param saturated whether the limit's capacity is used up and rows of it still wait: capacity freed soon is
   *     claimed at the next short poll, not the ordinary one
   * @param full whether it took as many rows as it was given room for: more may be due at once
   */
  public record Claimed(List<OutboxRow> rows, boolean saturated, boolean full) {}

  /** The relay's condition on outbox row {@code o}: its command has no limit. */
  static final String NOT_LIMITED = " AND NOT EXISTS (SELECT 1 FROM command_limit l WHERE l.exchange = o.exchange"
      + " AND l.routing_key = o.routing_key)";

  private static final String ALL = "SELECT exchange, routing_key, namespace, service, command, max_in_flight"
      + " FROM command_limit";
  private static final String UPSERT = "INSERT INTO command_limit (exchange, routing_key, namespace, service, command,"
      + " max_in_flight) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (exchange, routing_key) DO UPDATE SET"
      + " namespace = excluded.namespace, service = excluded.service, command = excluded.command,"
      + " max_in_flight = excluded.max_in_flight WHERE command_limit.max_in_flight <> excluded.max_in_flight"
      + " OR command_limit.namespace <> excluded.namespace";
  private static final String DROP = "DELETE FROM command_limit WHERE exchange = ? AND routing_key = ?";
  private static final String DROP_SLOTS = "DELETE FROM command_slot WHERE exchange = ? AND routing_key = ?";
  /**
   * How long a reservation keeps its row from other claims: a claim reserves rows in a short transaction of its own
   * (their slots, committed), then locks them in the batch that publishes them, which holds them until it ends. A
   * reservation older than this whose row is still there, unlocked, was not published (its runtime died between the
   * two, or the publish failed and was deferred) and the next claim takes the row again, keeping its slot.
   */
  static final String RESERVED_FOR = "interval '5 seconds'";
  /** The class of the advisory locks on limited commands (the two-key space, apart from other advisory locks). */
  private static final int LOCK_CLASS = 0x4c494d;
  /**
   * Of outbox row {@code o}: no claim has reserved it lately (see {@link #RESERVED_FOR}), or the reservation came
   * before its next attempt was set: a publish that failed defers its row, which is then due again at its time. A
   * reservation is timed by the clock when it is taken, not by its transaction's start: a row whose transaction began
   * after the reserving one (and committed before its claim) is due from that later start.
   */
  private static final String NOT_RESERVED = " AND NOT EXISTS (SELECT 1 FROM command_slot f"
      + " WHERE f.message_id = o.message_id AND f.taken_at > now() - " + RESERVED_FOR
      + " AND f.taken_at >= o.next_attempt_at)";
  /**
   * The limit, held by the reserving transaction (a transaction-scoped advisory lock on the command: holding it writes
   * nothing), and its {@code maxInFlight}: reservations of one command are made one at a time, each seeing the slots
   * of the one before (committed). A statement of its own: the count that follows must be read after the lock is held
   * (under READ COMMITTED a statement reads the database as of its start). The reservation commits without waiting
   * for its WAL flush, as the batch that publishes its rows does: a crash that loses it loses that batch's commit too
   * (the log is replayed in order), and the rows are sent again, reserved again.
   */
  private static final String HOLD = "SELECT l.max_in_flight FROM (SELECT pg_advisory_xact_lock(" + LOCK_CLASS
      + ", hashtext(?)), set_config('synchronous_commit', 'off', true)) k"
      + " LEFT JOIN command_limit l ON l.exchange = ? AND l.routing_key = ?";
  /**
   * A reservation in one round trip once the limit is held: counts its slots, takes up to the capacity the count
   * leaves of the rows {@code candidates} names (due, not held by a pause, not reserved lately, not locked by a batch
   * publishing them, and not among the rows this transaction took already), in outbox order, takes their slots (or
   * renews a stale one) and gives their parked steps their time back (the command's {@code baton-deadline} too). One
   * row per reserved command, or a single row without one; each carries the count, which includes the slots this
   * transaction took before.
   */
  private static String reserve(String candidates) {
    return "WITH slots AS (SELECT count(*) AS n FROM command_slot WHERE exchange = ? AND routing_key = ?),"
        + " claimed AS (SELECT " + OutboxStore.ROW + ", o.instance_id FROM outbox o WHERE " + candidates
        + "   AND o.next_attempt_at <= now() AND NOT (o.id = ANY (?))" + PauseStore.NOT_HELD + NOT_RESERVED
        + "   ORDER BY o.id LIMIT (SELECT greatest(0, least(?, ? - s.n)) FROM slots s) FOR UPDATE OF o SKIP LOCKED),"
        + " taken AS (INSERT INTO command_slot (message_id, exchange, routing_key, instance_id, taken_at)"
        + "   SELECT message_id, exchange, routing_key, instance_id, clock_timestamp() FROM claimed"
        + "   WHERE instance_id IS NOT NULL ON CONFLICT (message_id) DO UPDATE SET taken_at = clock_timestamp()),"
        + " back AS (UPDATE instance_step s SET " + ParkedTimers.GIVE_BACK
        + "   FROM claimed k WHERE s.instance_id = k.instance_id AND s.command_message_id = k.message_id"
        + "   AND " + ParkedTimers.PARKED_AND_RUNNING + " RETURNING k.id AS claimed_id, " + ParkedTimers.DEADLINE_MS + "),"
        + " rewritten AS (UPDATE outbox o SET " + ParkedTimers.rewriteDeadline("b.deadline_ms")
        + "   FROM back b WHERE o.id = b.claimed_id AND " + ParkedTimers.HAS_DEADLINE + ")"
        + " SELECT m.used, k.*, b.deadline_ms FROM (SELECT n AS used FROM slots) m LEFT JOIN claimed k ON true"
        + " LEFT JOIN back b ON b.claimed_id = k.id ORDER BY k.id";
  }

  /**
   * Reserves among the command's due rows older than a bound (the first of those the runtime will reserve by id),
   * oldest first: the rows waiting for capacity, and other replicas'.
   */
  private static final String RESERVE_OLDEST = reserve("o.exchange = ? AND o.routing_key = ? AND o.id < ?");
  /**
   * Reserves among the rows of ids given (the commands this runtime just wrote), found by their ids rather than by a
   * search: while none of the command waits for capacity, they are its oldest due rows here.
   */
  private static final String RESERVE_BY_ID = reserve("o.id = ANY (?) AND o.exchange = ? AND o.routing_key = ?");

  /** Gives back the slots of commands that are over: their step attempt no longer runs, or their row is gone without one. */
  private static final String FREE = "DELETE FROM command_slot f WHERE f.exchange = ? AND f.routing_key = ?"
      + " AND NOT EXISTS (SELECT 1 FROM instance_step s WHERE s.instance_id = f.instance_id"
      + "   AND s.command_message_id = f.message_id AND s.status = 'RUNNING')";
  /**
   * The steps whose commands have waited for capacity for a second or more: their timers are parked, as a pause parks
   * them, until their command is claimed (a wait for capacity is not the step's time). Rows are read, not locked: a
   * relay claiming them is never held up by this. A row claimed meanwhile may have its step parked after it went out;
   * {@link #REPAIR} gives such a step its time back.
   */
  private static final String PARK = ParkedTimers.PARK_IDS_IN + "SELECT s.id FROM outbox o"
      + " JOIN command_limit l ON l.exchange = o.exchange AND l.routing_key = o.routing_key"
      + " JOIN instance_step s ON s.instance_id = o.instance_id AND s.command_message_id = o.message_id"
      + " WHERE s.status = 'RUNNING' AND o.created_at < now() - interval '1 second'"
      + " AND NOT EXISTS (SELECT 1 FROM command_slot f WHERE f.message_id = o.message_id))";
  /** Parked steps whose command has been claimed (a slot) get their time back: see {@link #PARK}. */
  private static final String REPAIR = "UPDATE instance_step s SET " + ParkedTimers.GIVE_BACK
      + " FROM command_slot f WHERE f.message_id = s.command_message_id AND f.instance_id = s.instance_id"
      + " AND " + ParkedTimers.PARKED_AND_RUNNING
      + " AND NOT EXISTS (SELECT 1 FROM outbox o JOIN dispatch_pause p ON " + PauseStore.HOLDS
      + "   WHERE o.message_id = f.message_id)"; // a pause holds it again: that pause keeps it parked
  /** Whether a row of the command, other than those just claimed, still waits (due, not held by a pause). */
  private static final String MORE = "SELECT EXISTS (SELECT 1 FROM outbox o WHERE o.exchange = ? AND o.routing_key = ?"
      + " AND o.next_attempt_at <= now() AND NOT (o.id = ANY (?))" + PauseStore.NOT_HELD + NOT_RESERVED + ")";
  private static final String WAITING = "SELECT l.namespace, l.service, l.command,"
      + " (SELECT count(*) FROM command_slot f JOIN instance_step s ON s.instance_id = f.instance_id"
      + "   AND s.command_message_id = f.message_id AND s.status = 'RUNNING'"
      + "   WHERE f.exchange = l.exchange AND f.routing_key = l.routing_key),"
      + " (SELECT count(*) FROM outbox o WHERE o.exchange = l.exchange AND o.routing_key = l.routing_key"
      + "   AND NOT EXISTS (SELECT 1 FROM command_slot f WHERE f.message_id = o.message_id))"
      + " FROM command_limit l";

  public List<Limit> all(Connection c) throws SQLException {
    List<Limit> limits = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(ALL); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        limits.add(new Limit(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
            rs.getInt(6)));
      }
    }
    return limits;
  }

  /** Records a limit, or its new value. */
  public void put(Connection c, Limit limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(UPSERT)) {
      ps.setString(1, limit.exchange());
      ps.setString(2, limit.routingKey());
      ps.setString(3, limit.namespace());
      ps.setString(4, limit.service());
      ps.setString(5, limit.command());
      ps.setInt(6, limit.maxInFlight());
      ps.executeUpdate();
    }
  }

  /** Drops a limit: its waiting rows are claimed as any others from then on. */
  public void drop(Connection c, Limit limit) throws SQLException {
    for (String sql : List.of(DROP, DROP_SLOTS)) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, limit.exchange());
        ps.setString(2, limit.routingKey());
        ps.executeUpdate();
      }
    }
  }

  /**
   * Reserves, in a transaction of its own that {@code c} must commit at once, up to {@code room} due rows of the
   * limited command, no more than its capacity left: among the rows of {@code ids} when some are given, else its
   * oldest of ids below {@code below}. The reserved rows are then claimed by id ({@link OutboxStore#claimReserved}) in the batch that publishes
   * them; until then no other claim takes them (see {@link #RESERVED_FOR}).
   */
  public Claimed reserve(Connection c, Limit limit, int room, List<Long> ids, long below) throws SQLException {
    int max;
    try (PreparedStatement ps = c.prepareStatement(HOLD)) {
      ps.setString(1, limit.exchange() + " " + limit.routingKey());
      ps.setString(2, limit.exchange());
      ps.setString(3, limit.routingKey());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        max = rs.getInt(1);
        if (rs.wasNull()) {
          return new Claimed(List.of(), false, false); // dropped meanwhile: its rows are anyone's now
        }
      }
    }
    List<OutboxRow> rows = new ArrayList<>();
    long used = reserve(c, limit, room, max, ids, below, rows);
    if (rows.size() < room && used + room > max) {
      // The count held the reservation back: give back the slots of commands that are over, and take what that frees.
      // A limit that is not reached never gets here (the follower gives slots back once a second).
      free(c, limit);
      int before = rows.size();
      used = reserve(c, limit, room - before, max, ids, below, rows) - before; // counts the slots taken before too
    }
    boolean saturated = false;
    if (used + rows.size() >= max) {
      try (PreparedStatement ps = c.prepareStatement(MORE)) {
        bind(ps, limit);
        ps.setArray(3, ids(c, rows));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          saturated = rs.getBoolean(1);
        }
      }
    }
    return new Claimed(rows, saturated, rows.size() >= room);
  }

  /**
   * One reservation of up to {@code room} more rows, added to {@code rows}; the slots counted before it (this
   * transaction's included). A reserved command whose step had its time given back goes out with the new deadline.
   */
  private static long reserve(Connection c, Limit limit, int room, int max, List<Long> ids, long below,
      List<OutboxRow> rows) throws SQLException {
    long used = 0;
    try (PreparedStatement ps = c.prepareStatement(ids.isEmpty() ? RESERVE_OLDEST : RESERVE_BY_ID)) {
      int i = 1;
      ps.setString(i++, limit.exchange());
      ps.setString(i++, limit.routingKey());
      if (!ids.isEmpty()) {
        ps.setArray(i++, c.createArrayOf("bigint", ids.toArray()));
      }
      ps.setString(i++, limit.exchange());
      ps.setString(i++, limit.routingKey());
      if (ids.isEmpty()) {
        ps.setLong(i++, below);
      }
      ps.setArray(i++, ids(c, rows));
      ps.setInt(i++, room);
      ps.setInt(i, max);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          used = rs.getLong("used");
          rs.getLong("id");
          if (!rs.wasNull()) {
            OutboxRow row = OutboxStore.row(rs);
            long deadline = rs.getLong("deadline_ms");
            rows.add(rs.wasNull() ? row : new OutboxRow(row.id(), row.message().withDeadline(deadline),
                row.createdAt(), row.attempts()));
          }
        }
      }
    }
    return used;
  }

  private static Array ids(Connection c, List<OutboxRow> rows) throws SQLException {
    return c.createArrayOf("bigint", rows.stream().map(OutboxRow::id).toArray());
  }

  /** Gives back the slots of the limit's commands that are over; how many. */
  public int free(Connection c, Limit limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FREE)) {
      bind(ps, limit);
      return ps.executeUpdate();
    }
  }

  /** Parks the timers of the steps whose commands wait for capacity; how many. */
  public int park(Connection c) throws SQLException {
    int parked;
    try (PreparedStatement ps = c.prepareStatement(PARK)) {
      parked = ps.executeUpdate();
    }
    try (PreparedStatement ps = c.prepareStatement(REPAIR)) {
      ps.executeUpdate();
    }
    return parked;
  }

  /** Per limited command: how many are in flight and how many wait in the outbox (the gauges, the board). */
  public record Waiting(String namespace, String service, String command, long inFlight, long waiting) {}

  public List<Waiting> waiting(Connection c) throws SQLException {
    List<Waiting> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(WAITING); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new Waiting(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getLong(5)));
      }
    }
    return out;
  }

  private static void bind(PreparedStatement ps, Limit limit) throws SQLException {
    ps.setString(1, limit.exchange());
    ps.setString(2, limit.routingKey());
  }
}
