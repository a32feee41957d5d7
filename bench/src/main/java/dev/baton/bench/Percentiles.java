package dev.baton.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/** Latency percentiles in milliseconds, computed by PostgreSQL from the runtime's own timestamps. */
record Percentiles(long count, double p50, double p95, double p99) {

  static final Percentiles NONE = new Percentiles(0, Double.NaN, Double.NaN, Double.NaN);

  /** Dispatch → result applied, of every task attempt dispatched in [from, to) (not the groups around them). */
  static Percentiles steps(Connection c, Instant from, Instant to) throws SQLException {
    return query(c, "SELECT count(*), percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY"
        + " extract(epoch FROM finished_at - started_at) * 1000) FROM instance_step"
        + " WHERE kind = 'task' AND started_at >= ? AND started_at < ? AND finished_at IS NOT NULL", from, to);
  }

  /** Created → finished, of every instance created in [from, to) and finished. */
  static Percentiles endToEnd(Connection c, Instant from, Instant to) throws SQLException {
    return query(c, "SELECT count(*), percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY"
        + " extract(epoch FROM finished_at - created_at) * 1000) FROM workflow_instance"
        + " WHERE created_at >= ? AND created_at < ? AND finished_at IS NOT NULL", from, to);
  }

  /** Of durations measured in the benchmark's JVM ({@link System#nanoTime} differences), nearest rank. */
  static Percentiles of(List<Long> nanos) {
    if (nanos.isEmpty()) {
      return NONE;
    }
    long[] v = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    return new Percentiles(v.length, rank(v, 0.5), rank(v, 0.95), rank(v, 0.99));
  }

  private static double rank(long[] sorted, double q) {
    int i = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  private static Percentiles query(Connection c, String sql, Instant from, Instant to) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
      ps.setObject(2, OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long n = rs.getLong(1);
        java.sql.Array a = rs.getArray(2);
        if (n == 0 || a == null) {
          return NONE;
        }
        Object[] v = (Object[]) a.getArray();
        return new Percentiles(n, ((Number) v[0]).doubleValue(), ((Number) v[1]).doubleValue(),
            ((Number) v[2]).doubleValue());
      }
    }
  }
}
