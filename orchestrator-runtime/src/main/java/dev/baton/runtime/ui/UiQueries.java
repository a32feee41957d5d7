package dev.baton.runtime.ui;

import dev.baton.contract.Headers;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.RunningSteps;
import dev.baton.runtime.ui.InstancePage.Cursor;
import dev.baton.runtime.ui.InstancePage.Row;
import dev.baton.runtime.ui.WorkflowBoard.Count;
import dev.baton.runtime.ui.WorkflowBoard.Occupancy;
import dev.baton.workflow.IterationNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * What the UI's lists read that the API has no endpoint for: who is at which step (the store's
 * {@link RunningSteps}), instance counts as of now (the store's {@link InstanceStore#countByStatusNow}) and keyset
 * pages of a workflow's instances (read-only SQL of its own). The instance page itself reads the API's instance
 * document, not these tables.
 */
final class UiQueries {

  private final RunningSteps runningSteps = new RunningSteps();
  private final InstanceStore instances = new InstanceStore();

  /**
   * One snapshot for the whole page: the counts and who is at which step agree (both are written in the transaction
   * that moves an instance).
   */
  private static final String SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY";
  private static final String REVISION =
      "SELECT revision FROM workflow_definition WHERE namespace = ? AND name = ? AND spec_hash = ?";
  private static final String WAITING_FOR_CAPACITY = "SELECT o.headers->>'" + Headers.NAMESPACE + "',"
      + " o.headers->>'" + Headers.WORKFLOW + "', o.headers->>'" + Headers.STEP + "', count(*) FROM outbox o"
      + " JOIN command_limit l ON l.exchange = o.exchange AND l.routing_key = o.routing_key"
      + " WHERE NOT EXISTS (SELECT 1 FROM command_slot f WHERE f.message_id = o.message_id) GROUP BY 1, 2, 3";
  private static final String ROW = "SELECT id, business_key, status, current_step_name, attempt, step_started_at,"
      + " created_at, finished_at, last_error->>'step' AS error_step, last_error->>'errorCode' AS error_code,"
      + " last_error->>'reason' AS error_reason FROM workflow_instance WHERE namespace = ? AND workflow = ?";
  /** Newest first; ties on created_at broken by id, the same order the cursor compares in. */
  private static final String ORDER = " ORDER BY created_at DESC, id DESC LIMIT ?";
  private static final String AFTER = " AND (created_at, id) < (?, ?)";
  private static final List<String> ALL_STATUSES = List.of("RUNNING", "SUCCEEDED", "FAILED", "COMPENSATING",
      "COMPENSATED", "CANCELLED");

  /** Makes the rest of this transaction read one snapshot; call it before anything else in the transaction. */
  void oneSnapshot(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SNAPSHOT)) {
      ps.execute();
    }
  }

  /** Instances per namespace, workflow and status, as of this transaction (not the metrics' last refresh). */
  List<Count> counts(Connection c) throws SQLException {
    return instances.countByStatusNow(c).stream()
        .map(n -> new Count(n.namespace(), n.workflow(), n.status(), n.count())).toList();
  }

  /**
   * Who is at which step now: the runtime's own grouping of the attempts in flight (the one behind the
   * {@code baton_steps_running} gauges), without the groups (parallel, choice, map) themselves, which nobody waits at.
   */
  List<Occupancy> occupancy(Connection c, Set<String> groupSteps) throws SQLException {
    return runningSteps.groups(c).stream().map(g -> at(g, groupSteps)).flatMap(Optional::stream).toList();
  }

  /**
   * Where the attempts of one group are, as the board names steps: a compensation at the step it undoes, a step of a
   * map's iteration at its step of the definition ({@code ship-one[3]} at {@code ship-one}; the board adds up the
   * iterations), nowhere for a group ({@code groupSteps}: namespace/workflow/step) or a map's iteration.
   */
  static Optional<Occupancy> at(RunningSteps.Group g, Set<String> groupSteps) {
    String step = g.step();
    boolean compensating = step.endsWith(InstanceViewAdapter.COMPENSATE_SUFFIX);
    String definition = IterationNames.base(compensating
        ? step.substring(0, step.length() - InstanceViewAdapter.COMPENSATE_SUFFIX.length()) : step);
    if (groupSteps.contains(g.namespace() + "/" + g.workflow() + "/" + definition)) {
      return Optional.empty();
    }
    return Optional.of(new Occupancy(g.namespace(), g.workflow(), definition, compensating, g.running(),
        java.time.Duration.ofMillis(Math.round(g.oldestSeconds() * 1000))));
  }

  /**
   * Commands of a limited command waiting for capacity (docs/design.md#concurrency-limits), by namespace/workflow/step
   * of the definition (a map's iterations added up at their step). Nothing to read without limits.
   */
  Map<String, Long> waitingForCapacity(Connection c) throws SQLException {
    Map<String, Long> waiting = new java.util.HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(WAITING_FOR_CAPACITY); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        waiting.merge(rs.getString(1) + "/" + rs.getString(2) + "/" + IterationNames.base(rs.getString(3)),
            rs.getLong(4), Long::sum);
      }
    }
    return waiting;
  }

  /** The revision the runtime gave a spec (by its hash), or empty when it has not recorded it yet. */
  Optional<Integer> revision(Connection c, String namespace, String name, String specHash) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(REVISION)) {
      ps.setString(1, namespace);
      ps.setString(2, name);
      ps.setString(3, specHash);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getInt(1)) : Optional.empty();
      }
    }
  }

  /**
   * Up to {@code limit + 1} instances older than {@code after}, newest first (the extra row says whether another
   * page follows). Without a status, one ordered scan per status on the list index, merged, as the API's list does.
   */
  List<Row> instances(Connection c, String namespace, String workflow, String status, String businessKey,
      Cursor after, int limit) throws SQLException {
    List<String> statuses = status != null ? List.of(status) : businessKey != null ? List.of() : ALL_STATUSES;
    StringBuilder sql = new StringBuilder();
    if (statuses.isEmpty()) {
      sql.append(ROW).append(" AND business_key = ?").append(after == null ? "" : AFTER).append(ORDER);
    } else {
      sql.append("SELECT * FROM (");
      for (int i = 0; i < statuses.size(); i++) {
        sql.append(i == 0 ? "" : " UNION ALL ").append('(').append(ROW).append(" AND status = ?")
            .append(businessKey == null ? "" : " AND business_key = ?").append(after == null ? "" : AFTER)
            .append(ORDER).append(')');
      }
      sql.append(") page ORDER BY created_at DESC, id DESC LIMIT ?");
    }
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int p = 1;
      for (String st : statuses.isEmpty() ? List.of((String) null) : statuses) {
        ps.setString(p++, namespace);
        ps.setString(p++, workflow);
        if (st != null) {
          ps.setString(p++, st);
        }
        if (businessKey != null) {
          ps.setString(p++, businessKey);
        }
        if (after != null) {
          ps.setObject(p++, OffsetDateTime.ofInstant(after.createdAt(), ZoneOffset.UTC));
          ps.setObject(p++, after.id());
        }
        ps.setInt(p++, limit + 1);
      }
      if (!statuses.isEmpty()) {
        ps.setInt(p, limit + 1);
      }
      List<Row> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(new Row(rs.getObject("id", UUID.class), rs.getString("business_key"), rs.getString("status"),
              rs.getString("current_step_name"), rs.getInt("attempt"), instant(rs, "step_started_at"),
              instant(rs, "created_at"), instant(rs, "finished_at"), error(rs)));
        }
      }
      return rows;
    }
  }

  private static String error(ResultSet rs) throws SQLException {
    String step = rs.getString("error_step");
    String code = rs.getString("error_code");
    String reason = rs.getString("error_reason");
    if (step == null && code == null && reason == null) {
      return null;
    }
    return new InstanceView.Failure(step, null, null, code, reason, null).text() + (step == null ? "" : " (" + step
        + ")");
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }
}
