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
 * command's rows ({@link #NOT_LIMITED}); {@link #claimWithin} claims them within the capacity left, in outbox order,
 * holding the limit's row so that no other claim (another batch, another replica) hands out the same capacity.
 */
public final class LimitStore {

  /** A command's limit as the resources say it. */
  public record Limit(String exchange, String routingKey, String namespace, String service, String command,
      int maxInFlight) {}

  /**
   * What a claim within a limit took.
   *
   * @param saturated whether the limit's capacity is used up and rows of it still wait, or another claim held the
   *     limit: capacity freed soon is claimed at the next short poll, not the ordinary one
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
   * The limit, held for the claim's transaction; nothing when another claim holds it. A statement of its own: the
   * count that follows must be read after the lock is held (under READ COMMITTED a statement reads the database as
   * of its start, so a count in the locking statement could miss the slots of the claim that held it a moment ago).
   */
  private static final String HOLD = "SELECT max_in_flight, slots_bound FROM command_limit WHERE exchange = ?"
      + " AND routing_key = ? FOR UPDATE SKIP LOCKED";
  /**
   * The claim in one round trip once the limit is held: counts its slots (or, while it leaves room, takes their
   * bound, {@code slots_bound}, as their number: counting them costs as many rows as commands in flight), claims up to
   * the capacity the count leaves
   * (besides the rows this transaction claimed already: SKIP LOCKED passes over rows other transactions hold, not the
   * ones this one holds), takes their slots and gives their parked steps their time back (the command's
   * {@code baton-deadline} too). One row per claimed command, or a single row without one; each carries the count,
   * which includes the slots this transaction took before. The bound becomes the number used plus what is taken: the
   * slots given back since lower only the real count, so it stays an upper bound.
   */
  private static final String CLAIM = "WITH slots AS (SELECT CASE WHEN ? THEN (SELECT count(*) FROM command_slot"
      + "   WHERE exchange = ? AND routing_key = ?) ELSE ?::bigint END AS n),"
      + " claimed AS (SELECT " + OutboxStore.ROW + ", o.instance_id FROM outbox o WHERE o.exchange = ?"
      + "   AND o.routing_key = ? AND o.next_attempt_at <= now() AND NOT (o.id = ANY (?))" + PauseStore.NOT_HELD
      + "   ORDER BY o.id LIMIT (SELECT greatest(0, least(?, ? - s.n)) FROM slots s) FOR UPDATE OF o SKIP LOCKED),"
      + " taken AS (INSERT INTO command_slot (message_id, exchange, routing_key, instance_id)"
      + "   SELECT message_id, exchange, routing_key, instance_id FROM claimed WHERE instance_id IS NOT NULL"
      + "   ON CONFLICT (message_id) DO NOTHING),"
      + " back AS (UPDATE instance_step s SET " + ParkedTimers.GIVE_BACK
      + "   FROM claimed k WHERE s.instance_id = k.instance_id AND s.command_message_id = k.message_id"
      + "   AND " + ParkedTimers.PARKED_AND_RUNNING + " RETURNING k.id AS claimed_id, " + ParkedTimers.DEADLINE_MS + "),"
      + " rewritten AS (UPDATE outbox o SET " + ParkedTimers.rewriteDeadline("b.deadline_ms")
      + "   FROM back b WHERE o.id = b.claimed_id AND " + ParkedTimers.HAS_DEADLINE + "),"
      + " bound AS (UPDATE command_limit SET slots_bound = (SELECT n FROM slots) + (SELECT count(*) FROM claimed)"
      + "   WHERE exchange = ? AND routing_key = ?)"
      + " SELECT m.used, k.*, b.deadline_ms FROM (SELECT n AS used FROM slots) m LEFT JOIN claimed k ON true"
      + " LEFT JOIN back b ON b.claimed_id = k.id ORDER BY k.id";

  /** Gives back the slots of commands that are over: their step attempt no longer runs, or their row is gone without one. */
  private static final String FREE = "DELETE FROM command_slot f WHERE f.exchange = ? AND f.routing_key = ?"
      + " AND NOT EXISTS (SELECT 1 FROM instance_step s WHERE s.instance_id = f.instance_id"
      + "   AND s.command_message_id = f.message_id AND s.status = 'RUNNING')";
  /** The slots a limit's commands hold: the capacity used (a step that ends gives its slot back at once). */
  private static final String USED = "(SELECT count(*) FROM command_slot f WHERE f.exchange = l.exchange"
      + " AND f.routing_key = l.routing_key)";
  /**
   * The steps whose commands have waited for capacity for a second or more: their timers are parked, as a pause parks
   * them, until their command is claimed (a wait for capacity is not the step's time). Only the commands whose
   * capacity is used up wait for it: a limited command's rows waiting in a burst, its capacity not reached, wait for
   * the relay as any others do (and looking for them would read the whole outbox every second). Rows are read, not
   * locked: a relay claiming them is never held up by this. A row claimed meanwhile may have its step parked after it
   * went out; {@link #REPAIR} gives such a step its time back.
   */
  private static final String PARK = ParkedTimers.PARK_IDS_IN + "SELECT s.id FROM (SELECT l.exchange, l.routing_key"
      + "   FROM command_limit l WHERE " + USED + " >= l.max_in_flight) l"
      + " JOIN outbox o ON l.exchange = o.exchange AND l.routing_key = o.routing_key"
      + " JOIN instance_step s ON s.instance_id = o.instance_id AND s.command_message_id = o.message_id"
      + " WHERE s.status = 'RUNNING' AND o.created_at < now() - interval '1 second'"
      + " AND NOT EXISTS (SELECT 1 FROM command_slot f WHERE f.message_id = o.message_id))";
  /**
   * Parked steps whose command has been claimed (a slot) get their time back: see {@link #PARK}. Driven by the parked
   * steps (a partial index holds only them, usually none), not by the slots: the outbox has no index on message ids.
   */
  private static final String REPAIR = "UPDATE instance_step s SET " + ParkedTimers.GIVE_BACK
      + " WHERE " + ParkedTimers.PARKED_AND_RUNNING
      + " AND EXISTS (SELECT 1 FROM command_slot f WHERE f.message_id = s.command_message_id"
      + "   AND f.instance_id = s.instance_id)"
      + " AND NOT EXISTS (SELECT 1 FROM dispatch_pause p JOIN outbox o ON " + PauseStore.HOLDS
      + "   WHERE o.message_id = s.command_message_id)"; // a pause holds it again: that pause keeps it parked
  /** Whether a row of the command, other than those just claimed, still waits (due, not held by a pause). */
  private static final String MORE = "SELECT EXISTS (SELECT 1 FROM outbox o WHERE o.exchange = ? AND o.routing_key = ?"
      + " AND o.next_attempt_at <= now() AND NOT (o.id = ANY (?))" + PauseStore.NOT_HELD + ")";
  /**
   * In flight and waiting per limit: in flight, the slots (a step that ends gives its slot back in the same
   * transaction; those that end otherwise within a second); waiting, only while the capacity is used up: otherwise
   * rows wait for the relay as any others (and counting them would read the outbox, which has no index for it).
   */
  private static final String WAITING = "SELECT l.namespace, l.service, l.command, u.used,"
      + " CASE WHEN u.used >= l.max_in_flight THEN"
      + " (SELECT count(*) FROM outbox o WHERE o.exchange = l.exchange AND o.routing_key = l.routing_key"
      + "   AND NOT EXISTS (SELECT 1 FROM command_slot f WHERE f.message_id = o.message_id)) ELSE 0 END"
      + " FROM command_limit l, LATERAL (SELECT " + USED + " AS used) u";

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
   * Claims, in the caller's transaction, up to {@code room} due rows of the limited command, no more than its
   * capacity left; the limit's row stays held until the transaction ends. Nothing when another claim holds it.
   */
  public Claimed claimWithin(Connection c, Limit limit, int room) throws SQLException {
    Integer max = null;
    long bound = 0;
    try (PreparedStatement ps = c.prepareStatement(HOLD)) {
      bind(ps, limit);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          max = rs.getInt(1);
          bound = rs.getLong(2);
        }
      }
    }
    if (max == null) {
      return new Claimed(List.of(), true, false); // another claim holds it: its rows may wait, look again soon
    }
    List<OutboxRow> rows = new ArrayList<>();
    long used = claim(c, limit, room, max, bound + room > max ? null : bound, rows);
    if (rows.size() < room && used + room > max) {
      // The count held the claim back: give back the slots of commands that are over (a step that ends gives its
      // slot back at once; this takes those that ended otherwise), and take what that frees.
      free(c, limit);
      int before = rows.size();
      used = claim(c, limit, room - before, max, null, rows) - before; // its count includes the slots taken before
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
   * One {@link #CLAIM} of up to {@code room} more rows, added to {@code rows}; the slots counted before it (this
   * transaction's included). A claimed command whose step had its time given back goes out with the new deadline.
   */
  private static long claim(Connection c, Limit limit, int room, int max, Long bound, List<OutboxRow> rows)
      throws SQLException {
    long used = 0;
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setBoolean(1, bound == null); // count the slots, else take the bound as their number
      ps.setString(2, limit.exchange());
      ps.setString(3, limit.routingKey());
      ps.setLong(4, bound == null ? 0 : bound);
      ps.setString(5, limit.exchange());
      ps.setString(6, limit.routingKey());
      ps.setArray(7, ids(c, rows));
      ps.setInt(8, room);
      ps.setInt(9, max);
      ps.setString(10, limit.exchange());
      ps.setString(11, limit.routingKey());
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

  /**
   * Parks the timers of the steps whose commands wait for capacity; how many.
   *
   * @param anyWaiting whether {@link #waiting} found rows waiting for capacity: only then are there steps to park (the
   *     statement is not run otherwise, as the planner cannot see that the limits it joins are none)
   */
  public int park(Connection c, boolean anyWaiting) throws SQLException {
    int parked = 0;
    if (anyWaiting) {
      try (PreparedStatement ps = c.prepareStatement(PARK)) {
        parked = ps.executeUpdate();
      }
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
