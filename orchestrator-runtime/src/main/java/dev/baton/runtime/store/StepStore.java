package dev.baton.runtime.store;

import dev.baton.api.json.Json;
import dev.baton.runtime.core.InstanceState.StoredSignal;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.StepStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Reads {@code instance_step} (every attempt of every step, compensations included) and {@code instance_signal}.
 * The writes are {@link TransitionWriter}'s.
 */
public final class StepStore {

  private static final String COLUMNS = "instance_id, id, name, kind, parent, attempt, status, action,"
      + " command_message_id, dispatches, chosen, items::text AS items, finish_seq, result_message_id, late::text AS late,"
      + " output::text AS output, error_code, error_reason, started_at, finished_at,"
      + " coalesce(deadline <= now(), false) AS due,"
      + " CASE WHEN status = 'RUNNING' THEN (extract(epoch FROM now() - started_at) * 1000)::bigint ELSE 0 END"
      + "   AS elapsed_ms";
  /** The state machine's read: the steps of a batch's instances, in the order they started. */
  static final String LOAD = "SELECT " + COLUMNS + " FROM instance_step WHERE instance_id = ANY (?)"
      + " ORDER BY instance_id, id";
  private static final String LIST = "SELECT " + COLUMNS + " FROM instance_step WHERE instance_id = ? ORDER BY id";
  /** Instances with a step past its deadline, soonest first (the partial index holds only steps in flight). */
  private static final String DUE = "SELECT instance_id FROM instance_step WHERE deadline <= now()"
      + " GROUP BY instance_id ORDER BY min(deadline) LIMIT ?";
  private static final String SIGNALS = "SELECT instance_id, id, name, body::text AS body FROM instance_signal"
      + " WHERE instance_id = ANY (?) AND consumed_at IS NULL ORDER BY instance_id, id";
  private static final String STORE_SIGNAL = "INSERT INTO instance_signal (instance_id, name, body, idempotency_key)"
      + " VALUES (?, ?, ?::jsonb, ?) ON CONFLICT (instance_id, idempotency_key) WHERE idempotency_key IS NOT NULL"
      + " DO NOTHING RETURNING id";
  private static final String PENDING_SIGNALS =
      "SELECT count(*) FROM instance_signal WHERE instance_id = ? AND consumed_at IS NULL";

  /** Every attempt of the given instances' steps, oldest first per instance. */
  public Map<UUID, List<StepState>> load(Connection c, Collection<UUID> instanceIds) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LOAD)) {
      ps.setArray(1, c.createArrayOf("uuid", instanceIds.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        return byInstance(rs);
      }
    }
  }

  /** The rows of {@link #LOAD}, by instance. */
  static Map<UUID, List<StepState>> byInstance(ResultSet rs) throws SQLException {
    Map<UUID, List<StepState>> steps = new HashMap<>();
    while (rs.next()) {
      steps.computeIfAbsent(rs.getObject("instance_id", UUID.class), k -> new ArrayList<>()).add(map(rs));
    }
    return steps;
  }

  /** One instance's history, as the API shows it. */
  public List<StepState> listFor(Connection c, UUID instanceId) throws SQLException {
    List<StepState> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(LIST)) {
      ps.setObject(1, instanceId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(map(rs));
        }
      }
    }
    return rows;
  }

  /** Up to {@code limit} instances that have a step past its deadline (not locked: each is handled on its own). */
  public List<UUID> instancesDue(Connection c, int limit) throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(DUE)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getObject(1, UUID.class));
        }
      }
    }
    return ids;
  }

  /** Signals not consumed yet, oldest first per instance. */
  public Map<UUID, List<StoredSignal>> storedSignals(Connection c, Collection<UUID> instanceIds)
      throws SQLException {
    Map<UUID, List<StoredSignal>> signals = new HashMap<>();
    if (instanceIds.isEmpty()) {
      return signals;
    }
    try (PreparedStatement ps = c.prepareStatement(SIGNALS)) {
      ps.setArray(1, c.createArrayOf("uuid", instanceIds.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          signals.computeIfAbsent(rs.getObject("instance_id", UUID.class), k -> new ArrayList<>())
              .add(new StoredSignal(rs.getLong("id"), rs.getString("name"), Json.read(rs.getString("body"))));
        }
      }
    }
    return signals;
  }

  /**
   * Stores a signal for the instance (the caller holds its row lock).
   *
   * @param idempotencyKey the request's Idempotency-Key, or null: a signal with a key already stored for the instance
   *     is not stored again
   * @return whether it was stored (false: the same key was stored before)
   */
  public boolean storeSignal(Connection c, UUID instanceId, String name, String bodyJson, String idempotencyKey)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(STORE_SIGNAL)) {
      ps.setObject(1, instanceId);
      ps.setString(2, name);
      ps.setString(3, bodyJson);
      ps.setString(4, idempotencyKey);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** How many signals the instance holds that no wait has consumed yet. */
  public long pendingSignals(Connection c, UUID instanceId) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PENDING_SIGNALS)) {
      ps.setObject(1, instanceId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static StepState map(ResultSet rs) throws SQLException {
    return new StepState(
        rs.getLong("id"),
        rs.getString("name"),
        rs.getString("kind"),
        rs.getString("parent"),
        rs.getInt("attempt"),
        StepStatus.valueOf(rs.getString("status")),
        rs.getString("action"),
        rs.getObject("command_message_id", UUID.class),
        rs.getInt("dispatches"),
        null,
        rs.getBoolean("due"),
        rs.getString("chosen"),
        Json.read(rs.getString("items")),
        Jdbc.integerOrNull(rs, "finish_seq"),
        rs.getString("result_message_id"),
        Json.read(rs.getString("late")),
        Json.read(rs.getString("output")),
        rs.getString("error_code"),
        rs.getString("error_reason"),
        Jdbc.instant(rs, "started_at"),
        Jdbc.instant(rs, "finished_at"),
        rs.getLong("elapsed_ms"));
  }
}
