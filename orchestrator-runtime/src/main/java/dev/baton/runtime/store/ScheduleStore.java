package dev.baton.runtime.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** {@code schedule_state}: where each schedule of a Workflow stands, one row per schedule. */
public final class ScheduleStore {

  /**
   * A schedule's row.
   *
   * @param previousRunning whether the instance it started last is still RUNNING or COMPENSATING
   */
  public record Row(String namespace, String workflow, String schedule, Instant lastFire, Instant bufferedFire,
      Instant nextFire, UUID lastInstanceId, String lastBusinessKey, long skipped, long missed,
      boolean previousRunning) {}

  private static final String COLUMNS = "s.namespace, s.workflow, s.schedule, s.last_fire, s.buffered_fire,"
      + " s.next_fire, s.last_instance_id, s.last_business_key, s.skipped, s.missed,"
      + " coalesce(i.status IN ('RUNNING', 'COMPENSATING'), false) AS previous_running";
  /** The row of a schedule seen for the first time: its fires count from now. A row already there is left alone. */
  private static final String CREATE = "INSERT INTO schedule_state (namespace, workflow, schedule, last_fire)"
      + " VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING";
  private static final String LOCK = "SELECT " + COLUMNS + " FROM schedule_state s"
      + " LEFT JOIN workflow_instance i ON i.id = s.last_instance_id"
      + " WHERE s.namespace = ? AND s.workflow = ? AND s.schedule = ? FOR UPDATE OF s";
  private static final String MOVE = "UPDATE schedule_state SET last_fire = ?, buffered_fire = ?, next_fire = ?,"
      + " last_instance_id = coalesce(?, last_instance_id), last_business_key = coalesce(?, last_business_key),"
      + " skipped = skipped + ?, missed = missed + ?, updated_at = now()"
      + " WHERE namespace = ? AND workflow = ? AND schedule = ?";
  private static final String ALL = "SELECT " + COLUMNS + " FROM schedule_state s"
      + " LEFT JOIN workflow_instance i ON i.id = s.last_instance_id";
  private static final String FORGET = "DELETE FROM schedule_state WHERE namespace = ? AND workflow = ?"
      + " AND NOT (schedule = ANY (?))";

  /** Creates the row if it is not there yet, with {@code seen} as its last fire. */
  public void createIfAbsent(Connection c, String namespace, String workflow, String schedule, Instant seen)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(CREATE)) {
      ps.setString(1, namespace);
      ps.setString(2, workflow);
      ps.setString(3, schedule);
      ps.setTimestamp(4, Timestamp.from(seen));
      ps.executeUpdate();
    }
  }

  /** The schedule's row, locked until the transaction ends. */
  public Optional<Row> lock(Connection c, String namespace, String workflow, String schedule) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LOCK)) {
      ps.setString(1, namespace);
      ps.setString(2, workflow);
      ps.setString(3, schedule);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  /**
   * What a look decided.
   *
   * @param lastInstanceId the instance it started last, or null to keep the one before
   */
  public void move(Connection c, Row row, Instant lastFire, Instant bufferedFire, Instant nextFire,
      UUID lastInstanceId, String lastBusinessKey, int skipped, int missed) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(MOVE)) {
      ps.setTimestamp(1, Timestamp.from(lastFire));
      ps.setTimestamp(2, bufferedFire == null ? null : Timestamp.from(bufferedFire));
      ps.setTimestamp(3, nextFire == null ? null : Timestamp.from(nextFire));
      ps.setObject(4, lastInstanceId);
      ps.setString(5, lastBusinessKey);
      ps.setInt(6, skipped);
      ps.setInt(7, missed);
      ps.setString(8, row.namespace());
      ps.setString(9, row.workflow());
      ps.setString(10, row.schedule());
      ps.executeUpdate();
    }
  }

  /** Every schedule's row, for the status and the next looks. */
  public List<Row> all(Connection c) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(ALL); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(row(rs));
      }
    }
    return rows;
  }

  /** Drops the rows of a Workflow's schedules that are no longer in its spec. */
  public void forgetAllBut(Connection c, String namespace, String workflow, Collection<String> schedules)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FORGET)) {
      ps.setString(1, namespace);
      ps.setString(2, workflow);
      Array names = c.createArrayOf("text", schedules.toArray());
      ps.setArray(3, names);
      ps.executeUpdate();
    }
  }

  private static Row row(ResultSet rs) throws SQLException {
    return new Row(rs.getString("namespace"), rs.getString("workflow"), rs.getString("schedule"),
        Jdbc.instant(rs, "last_fire"), Jdbc.instant(rs, "buffered_fire"), Jdbc.instant(rs, "next_fire"),
        rs.getObject("last_instance_id", UUID.class), rs.getString("last_business_key"), rs.getLong("skipped"),
        rs.getLong("missed"), rs.getBoolean("previous_running"));
  }
}
