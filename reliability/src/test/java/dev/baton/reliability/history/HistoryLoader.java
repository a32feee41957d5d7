package dev.baton.reliability.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.reliability.history.History.Effect;
import dev.baton.reliability.history.History.Instance;
import dev.baton.reliability.history.History.OutboxRow;
import dev.baton.reliability.history.History.StepAttempt;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * Reads a run's {@link History} once it drained: instances, step attempts and outbox from the runtime's database
 * (each instance with the compensations its own revision declares: a Workflow edited mid-run leaves instances on
 * several), effects from the workers' ledger.
 */
public final class HistoryLoader {

  private static final ObjectMapper JSON = new ObjectMapper();

  private HistoryLoader() {}

  public static History load(String runtimeDbUrl, DataSource ledger, Set<String> acceptedKeys) {
    try (Connection rt = DriverManager.getConnection(runtimeDbUrl, "postgres", "");
        Connection led = ledger.getConnection()) {
      Map<String, Map<String, String>> compensations = compensations(rt);
      List<Instance> instances = new ArrayList<>();
      try (Statement s = rt.createStatement(); ResultSet rs = s.executeQuery("SELECT id::text, business_key,"
          + " workflow, revision, status, cancel_requested, created_at, finished_at FROM workflow_instance")) {
        while (rs.next()) {
          instances.add(new Instance(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4),
              rs.getString(5), rs.getBoolean(6), instant(rs.getTimestamp(7)), instant(rs.getTimestamp(8)),
              compensations.getOrDefault(rs.getString(3) + "@" + rs.getInt(4), Map.of())));
        }
      }
      List<StepAttempt> steps = new ArrayList<>();
      try (Statement s = rt.createStatement(); ResultSet rs = s.executeQuery("SELECT instance_id::text, name, kind,"
          + " attempt, status, action, started_at, finished_at, error_code, late IS NOT NULL FROM instance_step"
          + " ORDER BY id")) {
        while (rs.next()) {
          steps.add(new StepAttempt(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getString(5),
              rs.getString(6), instant(rs.getTimestamp(7)), instant(rs.getTimestamp(8)), rs.getString(9),
              rs.getBoolean(10)));
        }
      }
      List<OutboxRow> outbox = new ArrayList<>();
      try (Statement s = rt.createStatement(); ResultSet rs = s.executeQuery("SELECT id, instance_id::text,"
          + " routing_key, created_at FROM outbox ORDER BY id")) {
        while (rs.next()) {
          outbox.add(new OutboxRow(rs.getLong(1), rs.getString(2), rs.getString(3), instant(rs.getTimestamp(4))));
        }
      }
      List<Effect> effects = new ArrayList<>();
      try (Statement s = led.createStatement(); ResultSet rs = s.executeQuery("SELECT instance_id, step, action,"
          + " attempt, message_id, at, deadline FROM effect ORDER BY id")) {
        while (rs.next()) {
          effects.add(new Effect(rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getString(5),
              instant(rs.getTimestamp(6)), instant(rs.getTimestamp(7))));
        }
      }
      return new History(Set.copyOf(acceptedKeys), instances, steps, effects, outbox);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the run's history", e);
    }
  }

  /** "workflow@revision" → (step → compensating command), from each stored spec, nested steps included. */
  private static Map<String, Map<String, String>> compensations(Connection rt) throws SQLException {
    Map<String, Map<String, String>> all = new HashMap<>();
    try (Statement s = rt.createStatement();
        ResultSet rs = s.executeQuery("SELECT name, revision, spec::text FROM workflow_definition")) {
      while (rs.next()) {
        Map<String, String> bySteps = new LinkedHashMap<>();
        try {
          collect(JSON.readTree(rs.getString(3)).path("steps"), bySteps);
        } catch (java.io.IOException unreadable) {
          // a spec the runtime cannot read either: its instances have no compensations to check
        }
        all.put(rs.getString(1) + "@" + rs.getInt(2), bySteps);
      }
    }
    return all;
  }

  private static void collect(JsonNode steps, Map<String, String> into) {
    for (JsonNode step : steps) {
      if (step.hasNonNull("compensate")) {
        into.put(step.path("name").asText(), step.path("compensate").asText());
      }
      step.path("parallel").forEach(branch -> collect(branch.path("steps"), into));
      step.path("choice").forEach(c -> collect(c.path("steps"), into));
      collect(step.path("otherwise"), into);
    }
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }
}
