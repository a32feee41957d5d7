package dev.baton.runtime.store;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
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

  /** jsonb parameters are written as {@code ?::jsonb} and bound as text; null stays SQL NULL. */
  static void setJson(PreparedStatement ps, int index, String json) throws SQLException {
    if (json == null) {
      ps.setNull(index, Types.VARCHAR);
    } else {
      ps.setString(index, json);
    }
  }
}
