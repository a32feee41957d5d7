package dev.baton.runtime.store;

import dev.baton.runtime.engine.InstanceStatus;
import dev.baton.runtime.engine.Phase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Reads and writes {@code workflow_instance}. Every statement is a constant, so pgjdbc prepares it once per connection. */
public final class InstanceStore {

  private static final String COLUMNS = "id, namespace, workflow, revision, business_key, status, phase,"
      + " current_step_index, current_step_name, current_execution_id, attempt, dispatches, step_started_at,"
      + " step_deadline, input::text AS input, outputs::text AS outputs, last_error::text AS last_error, created_at,"
      + " updated_at, finished_at,"
      + " coalesce((extract(epoch FROM now() - step_started_at) * 1000)::bigint, 0) AS elapsed_ms";

  private static final String LOCK = "SELECT " + COLUMNS + " FROM workflow_instance WHERE id = ? FOR UPDATE";
  private static final String LOCK_ALL = "SELECT " + COLUMNS
      + " FROM workflow_instance WHERE id = ANY (?) ORDER BY id FOR UPDATE";
  private static final String FIND = "SELECT " + COLUMNS + " FROM workflow_instance WHERE id = ?";
  private static final String FIND_BY_KEY = "SELECT " + COLUMNS
      + " FROM workflow_instance WHERE namespace = ? AND workflow = ? AND business_key = ?";
  private static final String CLAIM_DUE = "SELECT " + COLUMNS + " FROM workflow_instance"
      + " WHERE step_deadline <= now() ORDER BY step_deadline LIMIT ? FOR UPDATE SKIP LOCKED";
  private static final String INSERT = "INSERT INTO workflow_instance (id, namespace, workflow, revision,"
      + " business_key, status, phase, current_step_index, current_step_name, attempt, dispatches, input)"
      + " VALUES (?, ?, ?, ?, ?, 'RUNNING', 'FORWARD', 0, ?, 0, 0, ?::jsonb)"
      + " ON CONFLICT (namespace, workflow, business_key) DO NOTHING RETURNING " + COLUMNS;
  private static final String DISPATCHED = "UPDATE workflow_instance SET status = ?, phase = ?,"
      + " current_step_index = ?, current_step_name = ?, current_execution_id = ?, attempt = ?, dispatches = ?,"
      + " step_started_at = now(), step_deadline = now() + (?::bigint * interval '1 millisecond'),"
      + " outputs = coalesce(?::jsonb, outputs), last_error = coalesce(?::jsonb, last_error),"
      + " finished_at = NULL, updated_at = now() WHERE id = ?";
  private static final String FINISHED = "UPDATE workflow_instance SET status = ?,"
      + " outputs = coalesce(?::jsonb, outputs), last_error = coalesce(?::jsonb, last_error),"
      + " step_deadline = NULL, finished_at = now(), updated_at = now() WHERE id = ?";
  private static final String COUNT_BY_STATUS =
      "SELECT namespace, workflow, status, count(*) AS n FROM workflow_instance GROUP BY namespace, workflow, status";
  private static final String ACTIVE_WORKFLOWS =
      "SELECT DISTINCT workflow FROM workflow_instance WHERE finished_at IS NULL";
  private static final String PURGE = "DELETE FROM workflow_instance WHERE id IN (SELECT id FROM workflow_instance"
      + " WHERE finished_at < now() - (?::bigint * interval '1 millisecond') ORDER BY finished_at LIMIT ?"
      + " FOR UPDATE SKIP LOCKED)";

  /** Locks the row for the rest of the transaction: events, timeouts and API calls for one instance take turns. */
  public Optional<InstanceRecord> lock(Connection c, UUID id) throws SQLException {
    return one(c, LOCK, id);
  }

  /** Locks several rows at once, in id order (every caller locks in that order, so batches cannot deadlock). */
  public Map<UUID, InstanceRecord> lockAll(Connection c, Collection<UUID> ids) throws SQLException {
    Map<UUID, InstanceRecord> rows = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(LOCK_ALL)) {
      ps.setArray(1, c.createArrayOf("uuid", ids.toArray()));
      for (InstanceRecord r : all(ps)) {
        rows.put(r.id(), r);
      }
    }
    return rows;
  }

  public Optional<InstanceRecord> find(Connection c, UUID id) throws SQLException {
    return one(c, FIND, id);
  }

  public Optional<InstanceRecord> findByBusinessKey(Connection c, String namespace, String workflow, String businessKey)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FIND_BY_KEY)) {
      ps.setString(1, namespace);
      ps.setString(2, workflow);
      ps.setString(3, businessKey);
      return first(ps);
    }
  }

  /** Locks up to {@code limit} instances whose step is past its deadline, skipping rows another node holds. */
  public List<InstanceRecord> claimDue(Connection c, int limit) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(CLAIM_DUE)) {
      ps.setInt(1, limit);
      return all(ps);
    }
  }

  /**
   * Inserts a new instance, not yet dispatched (the caller applies the start decision in the same transaction).
   *
   * @return the new row, or empty when an instance with that business key exists already
   */
  public Optional<InstanceRecord> insertIfAbsent(Connection c, NewInstance n) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setObject(1, n.id());
      ps.setString(2, n.namespace());
      ps.setString(3, n.workflow());
      ps.setInt(4, n.revision());
      ps.setString(5, n.businessKey());
      ps.setString(6, n.firstStepName());
      ps.setString(7, n.inputJson());
      return first(ps);
    }
  }

  /** Records dispatches: the execution in flight ({@code executionIds}, same order), its attempt and deadline. */
  void markDispatched(Connection c, List<TransitionBatch.Dispatch> dispatches, long[] executionIds)
      throws SQLException {
    Jdbc.batch(c, DISPATCHED, dispatches.size(), (ps, i) -> {
      TransitionBatch.Dispatch d = dispatches.get(i);
      ps.setString(1, d.status().name());
      ps.setString(2, d.phase().name());
      ps.setInt(3, d.stepIndex());
      ps.setString(4, d.stepName());
      ps.setLong(5, executionIds[i]);
      ps.setInt(6, d.attempt());
      ps.setInt(7, d.dispatches());
      Jdbc.setLongOrNull(ps, 8, d.timeout() == null ? null : d.timeout().toMillis());
      Jdbc.setJson(ps, 9, d.outputsJson());
      Jdbc.setJson(ps, 10, d.lastErrorJson());
      ps.setObject(11, d.instanceId());
    });
  }

  /** Ends instances; where each stopped (phase, step, attempt) is kept for visibility and for retry. */
  void markFinished(Connection c, List<TransitionBatch.Finish> finishes) throws SQLException {
    Jdbc.batch(c, FINISHED, finishes.size(), (ps, i) -> {
      TransitionBatch.Finish f = finishes.get(i);
      ps.setString(1, f.status().name());
      Jdbc.setJson(ps, 2, f.outputsJson());
      Jdbc.setJson(ps, 3, f.lastErrorJson());
      ps.setObject(4, f.instanceId());
    });
  }

  /** Newest first, with optional filters. */
  public List<InstanceRecord> list(Connection c, String namespace, String workflow, InstanceStatus status,
      String businessKey, int limit) throws SQLException {
    StringBuilder sql = new StringBuilder("SELECT ").append(COLUMNS)
        .append(" FROM workflow_instance WHERE namespace = ? AND workflow = ?");
    if (status != null) {
      sql.append(" AND status = ?");
    }
    if (businessKey != null) {
      sql.append(" AND business_key = ?");
    }
    sql.append(" ORDER BY created_at DESC, id LIMIT ?");
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int i = 1;
      ps.setString(i++, namespace);
      ps.setString(i++, workflow);
      if (status != null) {
        ps.setString(i++, status.name());
      }
      if (businessKey != null) {
        ps.setString(i++, businessKey);
      }
      ps.setInt(i, limit);
      return all(ps);
    }
  }

  /** Instance counts per namespace, workflow and status (the metrics gauge). */
  public List<StatusCount> countByStatus(Connection c) throws SQLException {
    List<StatusCount> counts = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(COUNT_BY_STATUS); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        counts.add(new StatusCount(rs.getString("namespace"), rs.getString("workflow"), rs.getString("status"),
            rs.getLong("n")));
      }
    }
    return counts;
  }

  /** Names of the workflows that still have unfinished instances (their queues must keep being consumed). */
  public List<String> workflowsWithActiveInstances(Connection c) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(ACTIVE_WORKFLOWS); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  /** Deletes up to {@code batch} instances finished more than {@code age} ago, with their steps (cascade). */
  public int purgeFinished(Connection c, Duration age, int batch) throws SQLException {
    return Jdbc.purge(c, PURGE, age, batch);
  }

  private Optional<InstanceRecord> one(Connection c, String sql, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, id);
      return first(ps);
    }
  }

  private Optional<InstanceRecord> first(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(map(rs)) : Optional.empty();
    }
  }

  private List<InstanceRecord> all(PreparedStatement ps) throws SQLException {
    List<InstanceRecord> rows = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(map(rs));
      }
    }
    return rows;
  }

  private static InstanceRecord map(ResultSet rs) throws SQLException {
    return new InstanceRecord(
        rs.getObject("id", UUID.class),
        rs.getString("namespace"),
        rs.getString("workflow"),
        rs.getInt("revision"),
        rs.getString("business_key"),
        InstanceStatus.valueOf(rs.getString("status")),
        Phase.valueOf(rs.getString("phase")),
        rs.getInt("current_step_index"),
        rs.getString("current_step_name"),
        Jdbc.longOrNull(rs, "current_execution_id"),
        rs.getInt("attempt"),
        rs.getInt("dispatches"),
        Jdbc.instant(rs, "step_started_at"),
        Jdbc.instant(rs, "step_deadline"),
        rs.getString("input"),
        rs.getString("outputs"),
        rs.getString("last_error"),
        Jdbc.instant(rs, "created_at"),
        Jdbc.instant(rs, "updated_at"),
        Jdbc.instant(rs, "finished_at"),
        rs.getLong("elapsed_ms"));
  }

  /** What a new instance starts with. */
  public record NewInstance(UUID id, String namespace, String workflow, int revision, String businessKey,
      String firstStepName, String inputJson) {}

  /** One group of the per-status count. */
  public record StatusCount(String namespace, String workflow, String status, long count) {}
}
