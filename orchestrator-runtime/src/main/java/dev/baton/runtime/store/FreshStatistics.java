package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Keeps the planner's statistics of the hot tables from lagging far behind while they are young.
 *
 * <p>Every connection keeps the plans of its prepared statements (and of the foreign-key checks) until the tables'
 * statistics change. A runtime that starts on a new database plans on empty tables, where a sequential scan is the
 * cheapest way to find a row by key, and keeps those plans while the tables fill: measured, a lookup by key then
 * reads the whole table and the step loop runs at a fraction of its speed, until autovacuum's first ANALYZE (up to a
 * minute, more on a busy server). Run with the periodic gauges, this ANALYZEs a hot table whose row count has more
 * than doubled since its statistics were taken (plus a margin), which only happens while it is young: once the
 * tables are large, autovacuum keeps up and this does nothing.
 */
public final class FreshStatistics {

  private static final Set<String> HOT = Set.of("workflow_instance", "instance_step", "outbox");
  private static final long MARGIN = 1_000;
  private static final String STALE = "SELECT c.relname FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid"
      + " WHERE c.relname = ANY (?) AND c.relnamespace = to_regnamespace(current_schema())"
      + " AND s.n_live_tup > 2 * greatest(c.reltuples, 0) + " + MARGIN;

  /** @return the tables analysed */
  public List<String> refresh(Connection c) throws SQLException {
    List<String> stale = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(STALE)) {
      ps.setArray(1, c.createArrayOf("text", HOT.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          stale.add(rs.getString(1));
        }
      }
    }
    for (String table : stale) {
      try (Statement s = c.createStatement()) {
        s.execute("ANALYZE " + table); // a name from HOT, never from outside
      }
    }
    return stale;
  }
}
