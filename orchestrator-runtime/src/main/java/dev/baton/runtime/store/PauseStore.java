package dev.baton.runtime.store;

import dev.baton.contract.Headers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code dispatch_pause}: the paused Workflows and WorkerServices, and what a pause does to the steps it holds
 * (docs/design.md#pause-and-resume). A pause holds the outbox rows it matches ({@link #NOT_HELD}, in the relay's
 * claims); the steps waiting on them, and a paused Workflow's waits and delays, have their deadlines parked: taken
 * away, what was left of them kept in {@code held_remaining}, given back when the pause ends.
 */
public final class PauseStore {

  /** A pause: of a Workflow ({@code exchange} null) or of a WorkerService's commands (its command exchange). */
  public record Pause(Kind kind, String namespace, String name, String exchange, Instant pausedAt) {}

  public enum Kind {
    WORKFLOW, SERVICE;

    String wire() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Whether pause {@code p} holds outbox row {@code o}: its service's exchange, or a command of its Workflow. */
  static final String HOLDS = "(p.exchange = o.exchange OR (p.kind = 'workflow' AND o.instance_id IS NOT NULL"
      + " AND p.namespace = o.headers->>'" + Headers.NAMESPACE + "' AND p.name = o.headers->>'" + Headers.WORKFLOW
      + "'))";
  /** The relay's condition on outbox row {@code o}: no pause holds it. */
  static final String NOT_HELD = " AND NOT EXISTS (SELECT 1 FROM dispatch_pause p WHERE " + HOLDS + ")";

  private static final String ALL = "SELECT kind, namespace, name, exchange, paused_at FROM dispatch_pause";
  private static final String PAUSE = "INSERT INTO dispatch_pause (kind, namespace, name, exchange) VALUES (?, ?, ?, ?)"
      + " ON CONFLICT DO NOTHING";
  private static final String END = "DELETE FROM dispatch_pause WHERE kind = ? AND namespace = ? AND name = ?"
      + " RETURNING 1";
  /** The running steps whose command pauses hold in the outbox, of the pauses {@code which} selects. */
  private static String heldCommands(String which, String lock) {
    return "SELECT s.id FROM dispatch_pause p JOIN outbox o ON " + HOLDS
        + " JOIN instance_step s ON s.instance_id = o.instance_id AND s.command_message_id = o.message_id"
        + " WHERE " + which + " AND s.status = 'RUNNING'" + lock;
  }

  /** The running waits and delays of the paused Workflows {@code which} selects. */
  private static String heldTimers(String which) {
    return "SELECT s.id FROM dispatch_pause p JOIN workflow_instance i ON p.kind = 'workflow'"
        + " AND i.namespace = p.namespace AND i.workflow = p.name AND i.finished_at IS NULL"
        + " JOIN instance_step s ON s.instance_id = i.id AND s.kind IN ('wait', 'delay') AND s.status = 'RUNNING'"
        + " WHERE " + which;
  }

  private static final String ONE = "p.kind = ? AND p.namespace = ? AND p.name = ?";
  /**
   * Parks the deadlines of the steps whose commands one pause holds. An outbox row another transaction holds is
   * passed over: a relay may be publishing it (claimed just before the pause), and a step whose command goes out must
   * keep its timer; if it is still there, the next look parks it.
   */
  private static final String PARK_COMMANDS = ParkedTimers.PARK_IDS_IN + heldCommands(ONE, " FOR UPDATE OF o SKIP LOCKED") + ")";
  /** Parks the deadlines of a paused Workflow's waits and delays. */
  private static final String PARK_TIMERS = ParkedTimers.PARK_IDS_IN + heldTimers(ONE) + ")";

  /**
   * Gives their time back to the parked steps no pause holds any more (run once the ended pause's row is gone), never
   * past their instance's own deadline, and to the commands that wait for them a {@code baton-deadline} to match.
   * A parked step that ended meanwhile just loses its parked time. The partial index on held_remaining keeps
   * the search to the parked steps.
   */
  private static final String UNPARK = "WITH back AS (UPDATE instance_step s SET deadline = CASE WHEN"
      + "   s.status = 'RUNNING' THEN " + ParkedTimers.DEADLINE_BACK + " END, held_remaining = NULL"
      + " WHERE s.held_remaining IS NOT NULL AND s.id NOT IN (" + heldCommands("true", "") + " UNION "
      + heldTimers("true") + ")"
      + " RETURNING instance_id, command_message_id, " + ParkedTimers.DEADLINE_MS + ")"
      + " UPDATE outbox o SET " + ParkedTimers.rewriteDeadline("b.deadline_ms")
      + " FROM back b WHERE o.instance_id = b.instance_id AND o.message_id = b.command_message_id"
      + "   AND b.deadline_ms IS NOT NULL AND " + ParkedTimers.HAS_DEADLINE; // an ended step's command is withdrawn

  public List<Pause> all(Connection c) throws SQLException {
    List<Pause> pauses = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(ALL); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        pauses.add(new Pause(Kind.valueOf(rs.getString("kind").toUpperCase(java.util.Locale.ROOT)),
            rs.getString("namespace"), rs.getString("name"), rs.getString("exchange"),
            Jdbc.instant(rs, "paused_at")));
      }
    }
    return pauses;
  }

  /** Records a pause (a pause already recorded stays as it is, with its time). */
  public void pause(Connection c, Kind kind, String namespace, String name, String exchange) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(PAUSE)) {
      ps.setString(1, kind.wire());
      ps.setString(2, namespace);
      ps.setString(3, name);
      ps.setString(4, exchange);
      ps.executeUpdate();
    }
  }

  /** Parks the timers of the steps the pause holds now; how many. */
  public int park(Connection c, Pause pause) throws SQLException {
    int parked = 0;
    for (String sql : pause.kind() == Kind.WORKFLOW ? List.of(PARK_COMMANDS, PARK_TIMERS) : List.of(PARK_COMMANDS)) {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        ps.setString(1, pause.kind().wire());
        ps.setString(2, pause.namespace());
        ps.setString(3, pause.name());
        parked += ps.executeUpdate();
      }
    }
    return parked;
  }

  /**
   * Ends a pause: deletes it and gives the steps it parked their time back, in the caller's transaction. Returns false
   * when it was already ended (by another runtime): then nothing is given back twice.
   */
  public boolean end(Connection c, Pause pause) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(END)) {
      ps.setString(1, pause.kind().wire());
      ps.setString(2, pause.namespace());
      ps.setString(3, pause.name());
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return false;
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement(UNPARK)) {
      ps.executeUpdate();
    }
    return true;
  }
}
