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

  private static final String LIST = "SELECT id, step_index, step_name, kind, action, attempt, status,"
      + " command_message_id, started_at, finished_at, output::text AS output, error_code, error_reason"
      + " FROM step_execution WHERE instance_id = ? ORDER BY id";

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
