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

/** The outbox: written with the state change that asks for a command, drained by the relay. */
public class OutboxStore {

  private static final String CLAIM = "SELECT id, message_id, exchange, routing_key, correlation_id,"
      + " headers::text AS headers, body, (extract(epoch FROM created_at) * 1000)::bigint AS created_ms, attempts"
      + " FROM outbox WHERE next_attempt_at <= now()"
      + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
  /**
   * The rows of commands handed over at their commit, by id: primary-key lookups, whatever the outbox's churn has
   * left in its index (searching in id order walks every entry deleted since the last vacuum). A row already gone
   * (published, withdrawn), held by someone else or set aside for later is not returned. "Due" is judged at the
   * statement, not at the transaction's start (now()): the relay claims into a transaction that may have begun before
   * these rows were committed, and a row written after it began would look not due yet and wait for the next search.
   */
  private static final String CLAIM_BY_ID = "SELECT id FROM outbox WHERE id = ANY (?)"
      + " AND next_attempt_at <= statement_timestamp()"
      + " ORDER BY id FOR UPDATE SKIP LOCKED";
  // One round trip for both: the delete, and the commit's permission not to wait for its WAL flush.
  private static final String CONFIRMED = "WITH gone AS (DELETE FROM outbox WHERE id = ANY (?) RETURNING 1)"
      + " SELECT set_config('synchronous_commit', 'off', true), (SELECT count(*) FROM gone)";
  // Backoff doubles from 1s up to a minute: a WorkerService that is not Ready yet is retried, not hammered.
  private static final String DEFER = "UPDATE outbox SET attempts = attempts + 1, last_error = ?,"
      + " next_attempt_at = now() + least(power(2, attempts), 60) * interval '1 second' WHERE id = ANY (?)";
  /**
   * An instance's unpublished commands taken back, all or those of some attempts. A row the relay holds is waited
   * for (it is being published, for milliseconds, at most the relay's confirm timeout): then it is gone (published,
   * so not withdrawn) or still there (the broker refused it) and deleted. Skipping it instead would let a command be
   * delivered after its step had moved on. The relay never waits for an instance row, so this cannot deadlock.
   */
  private static final String WITHDRAW_ALL = "DELETE FROM outbox WHERE instance_id = ? RETURNING message_id";
  private static final String WITHDRAW = "DELETE FROM outbox WHERE instance_id = ? AND message_id = ANY (?)"
      + " RETURNING message_id";
  private static final String STATS =
      "SELECT count(*) AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0) AS age FROM outbox";

  /** Locks the oldest due rows; rows locked by another relay (another replica) are skipped, not waited for. */
  public List<OutboxRow> claim(Connection c, int limit) throws SQLException {
    List<OutboxRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(CLAIM)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          OutboxMessage m = new OutboxMessage(rs.getObject("message_id", UUID.class), rs.getString("exchange"),
              rs.getString("routing_key"), rs.getString("correlation_id"), rs.getString("headers"),
              rs.getBytes("body"));
          rows.add(new OutboxRow(rs.getLong("id"), m, Instant.ofEpochMilli(rs.getLong("created_ms")),
              rs.getInt("attempts")));
        }
      }
    }
    return rows;
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

  /** Withdraws every unpublished command of the instance; the message ids of those that were still there. */
  public Set<UUID> withdrawAll(Connection c, UUID instanceId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(WITHDRAW_ALL)) {
      ps.setObject(1, instanceId);
      return messageIds(ps);
    }
  }

  /** Withdraws these commands of the instance if still unpublished; the message ids of those that were. */
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
