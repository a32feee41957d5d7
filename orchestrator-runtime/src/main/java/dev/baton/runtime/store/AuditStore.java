package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.UUID;

/**
 * Reads and writes {@code instance_audit} (V9). A start's entry is written by the start's own statement
 * ({@link InstanceStore#insertAllAbsent}); the other actions' here, in their transaction.
 */
public final class AuditStore {

  private static final String INSERT = "INSERT INTO instance_audit (instance_id, action, user_name, source, detail)"
      + " VALUES (?, ?, ?, ?, ?) RETURNING at";
  /** Entries for instances that exist (a replayed message may name one purged since, or none of this runtime's). */
  private static final String INSERT_FOR_EXISTING = "INSERT INTO instance_audit (instance_id, action, user_name,"
      + " source, detail) SELECT i.id, ?, ?, ?, ? FROM workflow_instance i WHERE i.id = ANY (?)";
  private static final String LIST = "SELECT action, user_name, at, source, detail FROM instance_audit"
      + " WHERE instance_id = ? ORDER BY id";

  /** Records one action on an instance; returns the entry as written. */
  public AuditRow record(Connection c, UUID instance, AuditRow.Action action, Actor actor, String detail)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setObject(1, instance);
      ps.setString(2, action.wire());
      ps.setString(3, actor.user());
      ps.setString(4, actor.source());
      ps.setString(5, detail);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new AuditRow(action.wire(), actor.user(), Jdbc.instant(rs, "at"), actor.source(), detail);
      }
    }
  }

  /** Records one action on each of these instances that exists; returns how many were recorded. */
  public int recordForExisting(Connection c, Collection<UUID> instances, AuditRow.Action action, Actor actor,
      String detail) throws SQLException {
    if (instances.isEmpty()) {
      return 0;
    }
    try (PreparedStatement ps = c.prepareStatement(INSERT_FOR_EXISTING)) {
      ps.setString(1, action.wire());
      ps.setString(2, actor.user());
      ps.setString(3, actor.source());
      ps.setString(4, detail);
      ps.setArray(5, c.createArrayOf("uuid", instances.toArray()));
      return ps.executeUpdate();
    }
  }

  /** Every entry of an instance, oldest first. */
  public List<AuditRow> listFor(Connection c, UUID instance) throws SQLException {
    List<AuditRow> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(LIST)) {
      ps.setObject(1, instance);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new AuditRow(rs.getString("action"), rs.getString("user_name"), Jdbc.instant(rs, "at"),
              rs.getString("source"), rs.getString("detail")));
        }
      }
    }
    return rows;
  }
}
