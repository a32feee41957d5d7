package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Reads and writes {@code step_execution}: the per-attempt history an instance shows. */
public final class StepExecutionStore {

  private static final String ALLOCATE = "SELECT nextval('step_execution_id_seq') FROM generate_series(1, ?)";
  private static final String INSERT = "INSERT INTO step_execution (id, instance_id, step_index, step_name, kind,"
      + " action, attempt, status, command_message_id) VALUES (?, ?, ?, ?, ?, ?, ?, 'RUNNING', ?)";
  private static final String FINISH = "UPDATE step_execution SET status = ?, finished_at = now(),"
      + " output = ?::jsonb, error_code = ?, error_reason = ? WHERE id = ?";
  private static final String LIST = "SELECT id, step_index, step_name, kind, action, attempt, status,"
      + " command_message_id, started_at, finished_at, output::text AS output, error_code, error_reason"
      + " FROM step_execution WHERE instance_id = ? ORDER BY id";

  /** Ids for {@code n} new executions, in one round trip (so the instance rows can point at them in a batch). */
  long[] allocateIds(Connection c, int n) throws SQLException {
    long[] ids = new long[n];
    try (PreparedStatement ps = c.prepareStatement(ALLOCATE)) {
      ps.setInt(1, n);
      try (ResultSet rs = ps.executeQuery()) {
        for (int i = 0; i < n && rs.next(); i++) {
          ids[i] = rs.getLong(1);
        }
      }
    }
    return ids;
  }

  /** Starts executions (status RUNNING) under the given ids. */
  void insertRunning(Connection c, List<TransitionBatch.Dispatch> dispatches, long[] ids) throws SQLException {
    Jdbc.batch(c, INSERT, dispatches.size(), (ps, i) -> {
      TransitionBatch.Dispatch d = dispatches.get(i);
      ps.setLong(1, ids[i]);
      ps.setObject(2, d.instanceId());
      ps.setInt(3, d.stepIndex());
      ps.setString(4, d.stepName());
      ps.setString(5, d.phase().executionKind());
      ps.setString(6, d.action());
      ps.setInt(7, d.attempt());
      ps.setObject(8, d.commandMessageId());
    });
  }

  void finish(Connection c, List<TransitionBatch.ExecutionEnd> ends) throws SQLException {
    Jdbc.batch(c, FINISH, ends.size(), (ps, i) -> {
      TransitionBatch.ExecutionEnd e = ends.get(i);
      ps.setString(1, e.status().name());
      Jdbc.setJson(ps, 2, e.outputJson());
      ps.setString(3, e.errorCode());
      ps.setString(4, e.errorReason());
      ps.setLong(5, e.executionId());
    });
  }

  public List<StepExecutionRecord> listFor(Connection c, UUID instanceId) throws SQLException {
    List<StepExecutionRecord> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(LIST)) {
      ps.setObject(1, instanceId);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new StepExecutionRecord(
              rs.getLong("id"),
              rs.getInt("step_index"),
              rs.getString("step_name"),
              rs.getString("kind"),
              rs.getString("action"),
              rs.getInt("attempt"),
              rs.getString("status"),
              rs.getObject("command_message_id", UUID.class),
              Jdbc.instant(rs, "started_at"),
              Jdbc.instant(rs, "finished_at"),
              rs.getString("output"),
              rs.getString("error_code"),
              rs.getString("error_reason")));
        }
      }
    }
    return rows;
  }
}
