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
  private static final String FIND_BY_HASH =
      "SELECT revision FROM workflow_definition WHERE namespace = ? AND name = ? AND spec_hash = ?";
  private static final String INSERT_NEXT = "INSERT INTO workflow_definition (namespace, name, revision, spec,"
      + " spec_hash) SELECT ?, ?, coalesce(max(revision), 0) + 1, ?::jsonb, ? FROM workflow_definition"
      + " WHERE namespace = ? AND name = ? RETURNING revision";
  private static final String LOAD =
      "SELECT spec::text FROM workflow_definition WHERE namespace = ? AND name = ? AND revision = ?";

  /** The revision of this spec: the existing one for a known hash, else the next number. */
  public Revision ensureRevision(Connection c, String namespace, String name, String specJson, String specHash)
      throws SQLException {
    Optional<Integer> known = findByHash(c, namespace, name, specHash);
    if (known.isPresent()) {
      return new Revision(known.get(), false);
    }
    try (PreparedStatement ps = c.prepareStatement(LOCK)) {
      ps.setString(1, "baton-definition/" + namespace + "/" + name);
      ps.execute();
    }
    known = findByHash(c, namespace, name, specHash);
    if (known.isPresent()) {
      return new Revision(known.get(), false);
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
    try (PreparedStatement ps = c.prepareStatement(LOAD)) {
      ps.setString(1, namespace);
      ps.setString(2, name);
      ps.setInt(3, revision);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  private static Optional<Integer> findByHash(Connection c, String namespace, String name, String hash)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FIND_BY_HASH)) {
      ps.setString(1, namespace);
      ps.setString(2, name);
      ps.setString(3, hash);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getInt(1)) : Optional.empty();
      }
    }
  }

  /** A revision number, and whether this transaction wrote it (then it is not visible to others until commit). */
  public record Revision(int number, boolean inserted) {}
}
