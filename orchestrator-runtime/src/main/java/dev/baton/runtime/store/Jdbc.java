package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;

/** Small conversions the stores share. */
final class Jdbc {

  private Jdbc() {}

  static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  static Integer integerOrNull(ResultSet rs, String column) throws SQLException {
    int v = rs.getInt(column);
    return rs.wasNull() ? null : v;
  }

  static Long longOrNull(ResultSet rs, String column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  static void setLongOrNull(PreparedStatement ps, int index, Long value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.BIGINT);
    } else {
      ps.setLong(index, value);
    }
  }

  /** Binds the parameters of the {@code i}-th statement of a batch. */
  @FunctionalInterface
  interface Binder {
    void bind(PreparedStatement ps, int i) throws SQLException;
  }

  /** Runs one statement {@code n} times as one JDBC batch (one round trip; inserts become one multi-row insert). */
  static void batch(Connection c, String sql, int n, Binder binder) throws SQLException {
    if (n == 0) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < n; i++) {
        binder.bind(ps, i);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  /** A retention delete taking (age in milliseconds, batch size); returns how many rows went. */
  static int purge(Connection c, String sql, Duration age, int batch) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setLong(1, age.toMillis());
      ps.setInt(2, batch);
      return ps.executeUpdate();
    }
  }

  /** jsonb parameters are written as {@code ?::jsonb} and bound as text; null stays SQL NULL. */
  static void setJson(PreparedStatement ps, int index, String json) throws SQLException {
    if (json == null) {
      ps.setNull(index, Types.VARCHAR);
    } else {
      ps.setString(index, json);
    }
  }
}
