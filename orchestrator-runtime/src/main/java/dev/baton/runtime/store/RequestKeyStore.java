package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/** The answers of requests that carried an Idempotency-Key (table {@code request_key}), by endpoint and key. */
public final class RequestKeyStore {

  private static final String FIND = "SELECT request_hash, status, body FROM request_key WHERE scope = ? AND key = ?"
      + " AND created_at > now() - ? * interval '1 millisecond'";
  // A key seen before but older than the window is answered afresh: the old answer makes room.
  private static final String SAVE = "INSERT INTO request_key (scope, key, request_hash, status, body)"
      + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET request_hash = excluded.request_hash,"
      + " status = excluded.status, body = excluded.body, created_at = now()"
      + " WHERE request_key.created_at <= now() - ? * interval '1 millisecond'";
  private static final String PURGE = "DELETE FROM request_key WHERE created_at <= now() - ? * interval '1 millisecond'";

  /** A request's answer as it was given. */
  public record Answer(String requestHash, int status, byte[] body) {}

  /** The answer given to this key on this endpoint within {@code window}, if any. */
  public Optional<Answer> find(Connection c, String scope, String key, Duration window) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(FIND)) {
      ps.setString(1, scope);
      ps.setString(2, key);
      ps.setLong(3, window.toMillis());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new Answer(rs.getString(1), rs.getInt(2), rs.getBytes(3))) : Optional.empty();
      }
    }
  }

  /** Keeps the answer, unless a request with the same key got in first (its answer stands). */
  public void save(Connection c, String scope, String key, Answer answer, Duration window) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SAVE)) {
      ps.setString(1, scope);
      ps.setString(2, key);
      ps.setString(3, answer.requestHash());
      ps.setInt(4, answer.status());
      ps.setBytes(5, answer.body());
      ps.setLong(6, window.toMillis());
      ps.executeUpdate();
    }
  }

  /** Forgets the answers older than the window; how many. */
  public int purge(Connection c, Duration window) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PURGE)) {
      ps.setLong(1, window.toMillis());
      return ps.executeUpdate();
    }
  }
}
