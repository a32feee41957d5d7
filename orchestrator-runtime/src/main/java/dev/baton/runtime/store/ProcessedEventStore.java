package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.sql.ResultSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** Ids of events already applied, so a redelivery is recognised as such (docs/design.md#runtime-semantics). */
public final class ProcessedEventStore {

  private static final String MARK = "INSERT INTO processed_event (message_id, instance_id)"
      + " SELECT * FROM unnest(?::text[], ?::uuid[]) ON CONFLICT DO NOTHING RETURNING message_id";
  private static final String PURGE = "DELETE FROM processed_event WHERE ctid = ANY (ARRAY(SELECT ctid"
      + " FROM processed_event WHERE processed_at < now() - (?::bigint * interval '1 millisecond') LIMIT ?))";

  /**
   * Records message ids as processed, in one round trip.
   *
   * @param messageIds event message ids, each with the instance at the same position of {@code instanceIds}
   * @return the ids that were new; the others were applied before: duplicates
   */
  public Set<String> markProcessed(Connection c, List<String> messageIds, List<UUID> instanceIds) throws SQLException {
    Set<String> fresh = new HashSet<>();
    if (messageIds.isEmpty()) {
      return fresh;
    }
    try (PreparedStatement ps = c.prepareStatement(MARK)) {
      ps.setArray(1, c.createArrayOf("text", messageIds.toArray()));
      ps.setArray(2, c.createArrayOf("uuid", instanceIds.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          fresh.add(rs.getString(1));
        }
      }
    }
    return fresh;
  }

  public int purgeOlderThan(Connection c, Duration age, int batch) throws SQLException {
    return Jdbc.purge(c, PURGE, age, batch);
  }
}
