package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** The steps in flight, grouped by workflow and step: the aggregate form of "stuck at A, B or C". */
public final class RunningSteps {

  /**
   * One group: how many attempts run, how long the oldest has, and that age in units of its timeout (null when the
   * step has none, such as a wait without a timeout).
   */
  public record Group(String namespace, String workflow, String step, long running, double oldestSeconds,
      Double oldestInTimeouts) {}

  // A map's iterations count at their step of the definition (ship-one[3] at ship-one: one series per step, not per
  // item), and the iterations themselves nowhere, as the other groups.
  private static final String QUERY = "SELECT i.namespace, i.workflow,"
      + " regexp_replace(s.name, '\\[[0-9]+\\]', '', 'g') AS name, count(*) AS running,"
      + " extract(epoch FROM now() - min(s.started_at)) AS oldest_seconds,"
      + " max(extract(epoch FROM now() - s.started_at) / nullif(extract(epoch FROM s.deadline - s.started_at), 0))"
      + "   AS oldest_in_timeouts"
      + " FROM instance_step s JOIN workflow_instance i ON i.id = s.instance_id"
      + " WHERE s.status = 'RUNNING' AND s.kind <> 'iteration'"
      + " GROUP BY i.namespace, i.workflow, regexp_replace(s.name, '\\[[0-9]+\\]', '', 'g')";

  public List<Group> groups(Connection c) throws SQLException {
    List<Group> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(QUERY); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        double inTimeouts = rs.getDouble("oldest_in_timeouts");
        out.add(new Group(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong("running"),
            rs.getDouble("oldest_seconds"), rs.wasNull() ? null : inTimeouts));
      }
    }
    return out;
  }
}
