package dev.baton.runtime.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The outbox: written with the state change that asks for a command, drained by the relay. A command a pause holds
 * ({@link PauseStore}) is never claimed: it waits in its row, in order, until the pause ends.
 */
public class OutboxStore {

  /** The columns of a claimed row, over alias {@code o} ({@link #row}). */
  static final String ROW = "o.id, o.message_id, o.exchange, o.routing_key, o.correlation_id,"
      + " o.headers::text AS headers, o.body, (extract(epoch FROM o.created_at) * 1000)::bigint AS created_ms,"
      + " o.attempts";
  /** Not held by a pause, and not of a limited command (those are claimed within their capacity only). */
  static final String FREE_TO_CLAIM = PauseStore.NOT_HELD + LimitStore.NOT_LIMITED;
  private static final String CLAIM = "SELECT " + ROW
      + " FROM outbox o WHERE next_attempt_at <= now()" + FREE_TO_CLAIM
      + " ORDER BY id LIMIT ? FOR UPDATE OF o SKIP LOCKED";
  /**
   * The rows of commands handed over at their commit, by id: primary-key lookups, whatever the outbox's churn has
   * left in its index (searching in id order walks every entry deleted since the last vacuum). A row already gone
   * (published, withdrawn), held by someone else or set aside for later is not returned. "Due" is judged at the
   * statement, not at the transaction's start (now()): the relay claims into a transaction that may have begun before
   * these rows were committed, and a row written after it began would look not due yet and wait for the next search.
   */
  private static final String CLAIM_BY_ID = "SELECT id FROM outbox o WHERE id = ANY (?)"
      + " AND next_attempt_at <= statement_timestamp()" + FREE_TO_CLAIM
      + " ORDER BY id FOR UPDATE OF o SKIP LOCKED";
  /** The rows a limited claim reserved ({@link LimitStore#reserve}), locked for the batch that publishes them. */
  private static final String CLAIM_RESERVED = "SELECT id FROM outbox o WHERE id = ANY (?) ORDER BY id"
      + " FOR UPDATE OF o SKIP LOCKED";
  // One round trip for both: the delete, and the commit's permission not to wait for its WAL flush.
  private static final String CONFIRMED = "WITH gone AS (DELETE FROM outbox WHERE id = ANY (?) RETURNING 1)"
      + " SELECT set_config('synchronous_commit', 'off', true), (SELECT count(*) FROM gone)";
  // Backoff doubles from 1s up to a minute: a WorkerService that is not Ready yet is retried, not hammered.
  private static final String DEFER = "UPDATE outbox SET attempts = attempts + 1, last_error = ?,"
      + " next_attempt_at = now() + least(power(2, attempts), 60) * interval '1 second' WHERE id = ANY (?)";
  /**
   * An instance's unpublished commands taken back, all or those of some attempts. A row the relay holds is waited
   * for (it is being published, for milliseconds; a few seconds at most, after which the relay lets go of it): then
   * it is gone (published, so not withdrawn) or still there (refused, or in doubt) and deleted. Skipping it instead would let a command be
   * delivered after its step had moved on. The relay never waits for an instance row, so this cannot deadlock.
   * Rows in doubt (published during a broker alarm, not confirmed yet) are deleted but not reported as withdrawn:
   * their command may still reach a worker.
   */
  private static final String WITHDRAW_ALL = "WITH gone AS (DELETE FROM outbox WHERE instance_id = ?"
      + " RETURNING message_id, in_doubt) SELECT message_id FROM gone WHERE NOT in_doubt";
  private static final String WITHDRAW = "WITH gone AS (DELETE FROM outbox WHERE instance_id = ?"
      + " AND message_id = ANY (?) RETURNING message_id, in_doubt) SELECT message_id FROM gone WHERE NOT in_doubt";
  /** Set aside for good with the broker's reason: no claim takes a row due at 'infinity'; the engine deletes it. */
  private static final String REFUSE = "UPDATE outbox SET attempts = attempts + 1, last_error = ?, refused = ?,"
      + " next_attempt_at = 'infinity' WHERE id = ANY (?)";
  /** {@link #DEFER}, remembering when the command was first returned unroutable; which have been for long enough. */
  private static final String DEFER_UNROUTABLE = "UPDATE outbox SET attempts = attempts + 1, last_error = ?,"
      + " unroutable_since = coalesce(unroutable_since, now()),"
      + " next_attempt_at = now() + least(power(2, attempts), 60) * interval '1 second' WHERE id = ANY (?)"
      + " RETURNING id, now() - unroutable_since >= ? * interval '1 millisecond'";
  private static final String REFUSED = "SELECT id, instance_id, message_id, refused FROM outbox"
      + " WHERE refused IS NOT NULL ORDER BY id LIMIT ?";
  private static final String TAKE_REFUSED = "DELETE FROM outbox WHERE id = ? AND refused IS NOT NULL RETURNING id";
  /**
   * Published, no confirm yet, and the relay lets go of the rows (the broker blocks publishers): not due again for a
   * while, so that nothing claims them while their confirms may still come, and in doubt from now on.
   */
  private static final String IN_DOUBT = "UPDATE outbox SET in_doubt = true,"
      + " next_attempt_at = now() + ? * interval '1 millisecond' WHERE id = ANY (?)";
  private static final String DUE_NOW = "UPDATE outbox SET next_attempt_at = now()"
      + " WHERE id = ANY (?) AND refused IS NULL";
  private static final String STATS =
      "SELECT count(*) AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0) AS age FROM outbox";

  /** Locks the oldest due rows; rows locked by another relay (another replica) are skipped, not waited for. */
  public List<OutboxRow> claim(Connection c, int limit) throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs));
        }
      }
    }
    return rows;
  }

  static OutboxRow row(ResultSet rs) throws SQLException {
    OutboxMessage m = new OutboxMessage(rs.getObject("message_id", UUID.class), rs.getString("exchange"),
        rs.getString("routing_key"), rs.getString("correlation_id"), rs.getString("headers"), rs.getBytes("body"));
    return new OutboxRow(rs.getLong("id"), m, Instant.ofEpochMilli(rs.getLong("created_ms")), rs.getInt("attempts"));
  }

  /** Locks those of these rows that are still there and due, and not held by another transaction; their ids. */
  public java.util.Set<Long> claimById(Connection c, Collection<Long> ids) throws SQLException {
    java.util.Set<Long> locked = new java.util.HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(CLAIM_BY_ID)) {
      ps.setArray(1, bigints(c, ids));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          locked.add(rs.getLong(1));
        }
      }
    }
    return locked;
  }

  /** Locks the reserved rows of {@code ids} for the caller's batch; those it locked (a row gone is not). */
  public java.util.Set<Long> claimReserved(Connection c, Collection<Long> ids) throws SQLException {
    java.util.Set<Long> locked = new java.util.HashSet<>();
    try (PreparedStatement ps = c.prepareStatement(CLAIM_RESERVED)) {
      ps.setArray(1, bigints(c, ids));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          locked.add(rs.getLong(1));
        }
      }
    }
    return locked;
  }

  /**
   * Deletes the rows the broker confirmed and lets the transaction commit without waiting for its WAL flush: the
   * relay's bookkeeping acknowledges nothing on its durability. If a crash loses it, the rows are still there and
   * their commands are sent again with the same message ids, which workers dedupe: what a crash just before the
   * commit does anyway. The relay is then free for the next commands one disk flush sooner. Called once per batch,
   * before its commit, also when nothing was confirmed.
   */
  public void confirmed(Connection c, Collection<Long> ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(CONFIRMED)) {
      ps.setArray(1, bigints(c, ids));
      ps.executeQuery().close();
    }
  }

  /** Keeps rows that could not be delivered and sets them aside for a while, with the reason. */
  public void defer(Connection c, Collection<Long> ids, String error) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(DEFER)) {
      ps.setString(1, error);
      ps.setArray(2, bigints(c, ids));
      ps.executeUpdate();
    }
  }

  /**
   * Marks rows refused by the broker, with its reason (docs/design.md#runtime-semantics, "refused commands fail
   * fast"): never claimed again; {@link #refused} finds them for the engine.
   */
  public void refuse(Connection c, Collection<Long> ids, String reason) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(REFUSE)) {
      ps.setString(1, reason);
      ps.setString(2, reason);
      ps.setArray(3, bigints(c, ids));
      ps.executeUpdate();
    }
  }

  /**
   * Sets aside rows the broker returned unroutable, as {@link #defer} does.
   *
   * @return the ids of those first returned at least {@code refuseAfter} ago: unroutable for that long, they count
   *     as refused (the caller marks them)
   */
  public Set<Long> deferUnroutable(Connection c, Collection<Long> ids, String error, java.time.Duration refuseAfter)
      throws SQLException {
    Set<Long> overdue = new HashSet<>();
    if (ids.isEmpty()) {
      return overdue;
    }
    try (PreparedStatement ps = c.prepareStatement(DEFER_UNROUTABLE)) {
      ps.setString(1, error);
      ps.setArray(2, bigints(c, ids));
      ps.setLong(3, refuseAfter.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          if (rs.getBoolean(2)) {
            overdue.add(rs.getLong(1));
          }
        }
      }
    }
    return overdue;
  }

  /** The oldest rows the broker refused, up to {@code limit}, for the engine to fail their attempts. */
  public List<RefusedCommand> refused(Connection c, int limit) throws SQLException {
    List<RefusedCommand> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(REFUSED)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new RefusedCommand(rs.getLong("id"), rs.getObject("instance_id", UUID.class),
              rs.getObject("message_id", UUID.class), rs.getString("refused")));
        }
      }
    }
    return rows;
  }

  /**
   * Deletes a refused row in the transaction that applies the refusal (the instance's row locked first, as a cancel
   * does); false when it is gone already (withdrawn, or applied by another replica).
   */
  public boolean takeRefused(Connection c, long id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(TAKE_REFUSED)) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * Rows published without a confirm that the relay lets go of (the broker blocks publishers): in doubt from now on,
   * and not due for {@code until}, while their confirms may still come.
   */
  public void inDoubt(Connection c, Collection<Long> ids, java.time.Duration until) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(IN_DOUBT)) {
      ps.setLong(1, until.toMillis());
      ps.setArray(2, bigints(c, ids));
      ps.executeUpdate();
    }
  }

  /** Rows in doubt whose confirm never came: due again at once (those still there). */
  public void dueNow(Connection c, Collection<Long> ids) throws SQLException {
    if (ids.isEmpty()) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(DUE_NOW)) {
      ps.setArray(1, bigints(c, ids));
      ps.executeUpdate();
    }
  }

  /**
   * Withdraws every unpublished command of the instance; the message ids of those that were still there and never
   * went out (a worker will not receive them).
   */
  public Set<UUID> withdrawAll(Connection c, UUID instanceId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(WITHDRAW_ALL)) {
      ps.setObject(1, instanceId);
      return messageIds(ps);
    }
  }

  /**
   * Withdraws these commands of the instance if still unpublished; the message ids of those that were, and never went
   * out.
   */
  public Set<UUID> withdraw(Connection c, UUID instanceId, Collection<UUID> messageIds) throws SQLException {
    if (messageIds.isEmpty()) {
      return Set.of();
    }
    try (PreparedStatement ps = c.prepareStatement(WITHDRAW)) {
      ps.setObject(1, instanceId);
      ps.setArray(2, c.createArrayOf("uuid", messageIds.toArray()));
      return messageIds(ps);
    }
  }

  private static Set<UUID> messageIds(PreparedStatement ps) throws SQLException {
    Set<UUID> ids = new HashSet<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        ids.add(rs.getObject(1, UUID.class));
      }
    }
    return ids;
  }

  /** How many rows wait and how old the oldest is. */
  public Backlog backlog(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(STATS); ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new Backlog(rs.getLong("n"), rs.getDouble("age"));
    }
  }

  private static Array bigints(Connection c, Collection<Long> ids) throws SQLException {
    return c.createArrayOf("bigint", ids.toArray());
  }

  /** Rows waiting and the age of the oldest, in seconds. */
  public record Backlog(long pending, double oldestAgeSeconds) {}
}
