package dev.baton.runtime.store;

import dev.baton.api.json.Json;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** {@code bulk_operation}: the bulk operations, their progress and who works on them (a lease). */
public final class OperationStore {

  /**
   * A bulk operation as stored.
   *
   * @param filter the search's fields as given
   * @param upto its creation time: instances started later are not part of it
   * @param cursorAt where it stopped (the last instance it acted on, newest first), or null before the first
   */
  public record Operation(UUID id, String action, Map<String, String> filter, boolean compensate, String signal,
      String bodyJson, Instant upto, String state, long matched, long done, long failed, String lastFailure,
      Instant cursorAt, UUID cursorId, String createdBy, Instant createdAt, Instant finishedAt) {}

  private static final String COLUMNS = "id, action, filter::text AS filter, compensate, signal, body::text AS body,"
      + " upto, state, matched, done, failed, last_failure, cursor_at, cursor_id, created_by, created_at,"
      + " finished_at";
  private static final String INSERT = "INSERT INTO bulk_operation (id, action, filter, compensate, signal, body,"
      + " upto, state, matched, created_by, created_at) VALUES (?, ?, ?::jsonb, ?, ?, ?::jsonb, ?, 'RUNNING', ?, ?, ?)";
  private static final String FIND = "SELECT " + COLUMNS + " FROM bulk_operation WHERE id = ?";
  /**
   * The latest operations, newest first. No index: operations are few (people start them), and a scan of their
   * table, which keeps them all, stays cheap beside the instances they act on.
   */
  private static final String RECENT = "SELECT " + COLUMNS + " FROM bulk_operation ORDER BY created_at DESC, id"
      + " LIMIT ?";
  /** The oldest running operation nobody holds (or whose holder's lease lapsed), taken for a lease. */
  private static final String LEASE = "UPDATE bulk_operation SET leased_until = now() + (? * interval '1 millisecond')"
      + " WHERE id = (SELECT id FROM bulk_operation WHERE state = 'RUNNING'"
      + "   AND (leased_until IS NULL OR leased_until < now()) ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)"
      + " RETURNING " + COLUMNS;
  private static final String PROGRESS = "UPDATE bulk_operation SET done = done + ?, failed = failed + ?,"
      + " last_failure = coalesce(?, last_failure), cursor_at = ?, cursor_id = ? WHERE id = ?";
  private static final String FINISH = "UPDATE bulk_operation SET state = 'DONE', finished_at = now(),"
      + " leased_until = NULL WHERE id = ?";
  private static final String RELEASE = "UPDATE bulk_operation SET leased_until = NULL WHERE id = ?";

  public void create(Connection c, Operation op) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setObject(1, op.id());
      ps.setString(2, op.action());
      ps.setString(3, Json.write(Json.MAPPER.valueToTree(op.filter())));
      ps.setBoolean(4, op.compensate());
      ps.setString(5, op.signal());
      ps.setString(6, op.bodyJson());
      ps.setTimestamp(7, Timestamp.from(op.upto()));
      ps.setLong(8, op.matched());
      ps.setString(9, op.createdBy());
      ps.setTimestamp(10, Timestamp.from(op.createdAt()));
      ps.executeUpdate();
    }
  }

  public Optional<Operation> find(Connection c, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FIND)) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(operation(rs)) : Optional.empty();
      }
    }
  }

  /** At most {@code limit} of the latest operations, newest first. */
  public List<Operation> recent(Connection c, int limit) throws SQLException {
    List<Operation> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(RECENT)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(operation(rs));
        }
      }
    }
    return out;
  }

  /** The oldest running operation no runtime holds, now held by this one for {@code lease}; empty when none. */
  public Optional<Operation> lease(Connection c, Duration lease) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LEASE)) {
      ps.setLong(1, lease.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(operation(rs)) : Optional.empty();
      }
    }
  }

  /** One instance acted on (or refused): counted, and the cursor moved past it. */
  public void progress(Connection c, UUID id, boolean failed, String failure, Instant at, UUID instance)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PROGRESS)) {
      ps.setLong(1, failed ? 0 : 1);
      ps.setLong(2, failed ? 1 : 0);
      ps.setString(3, failure);
      ps.setTimestamp(4, Timestamp.from(at));
      ps.setObject(5, instance);
      ps.setObject(6, id);
      ps.executeUpdate();
    }
  }

  public void finish(Connection c, UUID id) throws SQLException {
    update(c, FINISH, id);
  }

  /** Gives the operation back before its lease lapses (the runtime stops): another runtime may take it at once. */
  public void release(Connection c, UUID id) throws SQLException {
    update(c, RELEASE, id);
  }

  private static void update(Connection c, String sql, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, id);
      ps.executeUpdate();
    }
  }

  @SuppressWarnings("unchecked")
  private static Operation operation(ResultSet rs) throws SQLException {
    Map<String, String> filter = new LinkedHashMap<>(Json.MAPPER.convertValue(Json.read(rs.getString("filter")),
        Map.class));
    return new Operation(rs.getObject("id", UUID.class), rs.getString("action"), filter, rs.getBoolean("compensate"),
        rs.getString("signal"), rs.getString("body"), Jdbc.instant(rs, "upto"), rs.getString("state"),
        rs.getLong("matched"), rs.getLong("done"), rs.getLong("failed"), rs.getString("last_failure"),
        Jdbc.instant(rs, "cursor_at"), rs.getObject("cursor_id", UUID.class), rs.getString("created_by"),
        Jdbc.instant(rs, "created_at"), Jdbc.instant(rs, "finished_at"));
  }
}
