package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/** Workflow specs by revision: written once per distinct spec, never changed. */
public final class DefinitionStore {

  // Serialises revision numbering per workflow across replicas; released at commit.
  private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))";
  /**
   * Whether a row was written by this very transaction, not committed yet: its xmin is our transaction id (a
   * transaction that has written nothing has none, and then no row is its own).
   */
  private static final String UNCOMMITTED = "coalesce(xmin = pg_current_xact_id_if_assigned()::xid, false)";
  private static final String FIND_BY_HASH = "SELECT revision, " + UNCOMMITTED
      + " FROM workflow_definition WHERE namespace = ? AND name = ? AND spec_hash = ?";
  private static final String INSERT_NEXT = "INSERT INTO workflow_definition (namespace, name, revision, spec,"
      + " spec_hash) SELECT ?, ?, coalesce(max(revision), 0) + 1, ?::jsonb, ? FROM workflow_definition"
      + " WHERE namespace = ? AND name = ? RETURNING revision";
  private static final String LOAD = "SELECT spec::text, " + UNCOMMITTED
      + " FROM workflow_definition WHERE namespace = ? AND name = ? AND revision = ?";

  /** The revision of this spec: the existing one for a known hash, else the next number. */
  public Revision ensureRevision(Connection c, String namespace, String name, String specJson, String specHash)
      throws SQLException {
    Optional<Revision> known = findByHash(c, namespace, name, specHash);
    if (known.isPresent()) {
      return known.get();
    }
    try (PreparedStatement ps = c.prepareStatement(LOCK)) {
      ps.setString(1, "baton-definition/" + namespace + "/" + name);
      ps.execute();
    }
    known = findByHash(c, namespace, name, specHash);
    if (known.isPresent()) {
      return known.get();
    }
    try (PreparedStatement ps = c.prepareStatement(INSERT_NEXT)) {
      ps.setString(1, namespace);
      ps.setString(2, name);
      ps.setString(3, specJson);
      ps.setString(4, specHash);
      ps.setString(5, namespace);
      ps.setString(6, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Revision(rs.getInt(1), true);
      }
    }
  }

  public Optional<String> loadSpec(Connection c, String namespace, String name, int revision) throws SQLException {
    return load(c, namespace, name, revision).map(Spec::json);
  }

  /** A revision's spec, and whether this transaction wrote it (so it may still be rolled back). */
  public Optional<Spec> load(Connection c, String namespace, String name, int revision) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LOAD)) {
      ps.setString(1, namespace);
      ps.setString(2, name);
      ps.setInt(3, revision);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new Spec(rs.getString(1), rs.getBoolean(2))) : Optional.empty();
      }
    }
  }

  private static Optional<Revision> findByHash(Connection c, String namespace, String name, String hash)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FIND_BY_HASH)) {
      ps.setString(1, namespace);
      ps.setString(2, name);
      ps.setString(3, hash);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new Revision(rs.getInt(1), rs.getBoolean(2))) : Optional.empty();
      }
    }
  }

  /**
   * A revision number, and whether this transaction wrote it, now or earlier: then others do not see it until the
   * commit, and a rollback takes it away, so nothing may remember it yet.
   */
  public record Revision(int number, boolean uncommitted) {}

  /** A revision's spec as stored, and whether this transaction wrote it (see {@link Revision}). */
  public record Spec(String json, boolean uncommitted) {}
}
