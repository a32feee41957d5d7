package dev.baton.runtime.store;

import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.Phase;
import dev.baton.runtime.core.StepState;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/** Reads and writes {@code workflow_instance}. Every statement is a constant, so pgjdbc prepares it once per connection. */
public final class InstanceStore {

  private static final String COLUMNS = "id, namespace, workflow, revision, business_key, status, phase,"
      + " current_step_name, attempt, step_started_at, input::text AS input, last_error::text AS last_error,"
      + " cancel_requested, created_at, updated_at, finished_at, trace_parent, created_by,"
      + " (SELECT min(s.deadline) FROM instance_step s WHERE s.instance_id = workflow_instance.id"
      + "   AND s.deadline IS NOT NULL) AS step_deadline, " + Deadline.COLUMNS;

  private static final String LOCK = "SELECT " + COLUMNS + " FROM workflow_instance WHERE id = ? FOR UPDATE";
  /** The timer sweep's lock: an instance another transaction holds is left for the next sweep. */
  private static final String LOCK_IF_FREE = "SELECT " + COLUMNS
      + " FROM workflow_instance WHERE id = ? FOR UPDATE SKIP LOCKED";
  /**
   * The step loop's lock: what deciding needs, without the timestamps only the API shows (reading a timestamptz as
   * text costs the driver a calendar computation per column per row). {@code created_at} is needed: an instance that
   * ends tells it in its outcome event.
   */
  private static final String HOT_COLUMNS = "id, namespace, workflow, revision, business_key, status, phase,"
      + " current_step_name, attempt, NULL::timestamptz AS step_started_at, input::text AS input,"
      + " last_error::text AS last_error, cancel_requested, created_at,"
      + " NULL::timestamptz AS updated_at, NULL::timestamptz AS finished_at, NULL::timestamptz AS step_deadline,"
      + " trace_parent, NULL::text AS created_by, " + Deadline.COLUMNS;
  private static final String LOCK_ALL = "SELECT " + HOT_COLUMNS
      + " FROM workflow_instance WHERE id = ANY (?) ORDER BY id FOR UPDATE";
  /**
   * Run in order: the steps are read once the instances are locked. It opens the step loop's transactions, so it
   * carries their plan setting.
   */
  private static final String LOCK_ALL_WITH_STEPS = Database.GENERIC_PLANS + LOCK_ALL + "; " + StepStore.LOAD;
  private static final String FIND = "SELECT " + COLUMNS + " FROM workflow_instance WHERE id = ?";
  private static final String FIND_BY_KEY = "SELECT " + COLUMNS
      + " FROM workflow_instance WHERE namespace = ? AND workflow = ? AND business_key = ?";
  /**
   * New instances, many in one statement, inserted in the order given (callers sort them by business key, so two
   * transactions with keys in common wait for each other instead of deadlocking); a business key that exists is
   * skipped (its inserter is waited for, as the unique index does). Each instance inserted gets its audit entry
   * ({@code start}, who, from where) in the same statement: no round trip more, and a key that existed records
   * nothing. Returns what was written, with the transaction's time as created_at. It opens the starts' transactions,
   * so it carries their plan setting.
   */
  private static final String INSERT_ALL = Database.GENERIC_PLANS + "WITH n AS (SELECT * FROM unnest(?::uuid[],"
      + " ?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
      + " ?::bigint[]) WITH ORDINALITY AS n(id, namespace, workflow, revision, business_key, input, trace_parent,"
      + "   created_by, source, detail, timeout_ms, ord)),"
      + " inserted AS (INSERT INTO workflow_instance (id, namespace, workflow, revision, business_key, status, phase,"
      + "   current_step_name, attempt, input, trace_parent, created_by, deadline)"
      + "   SELECT id, namespace, workflow, revision, business_key, 'RUNNING', 'FORWARD', '', 0, input::jsonb,"
      + "   trace_parent, created_by, " + Deadline.FROM_NOW + " FROM n ORDER BY ord"
      + "   ON CONFLICT (namespace, workflow, business_key) DO NOTHING RETURNING id, namespace, workflow, revision,"
      + "   business_key, status, phase, current_step_name, attempt, NULL::timestamptz AS step_started_at,"
      + "   input::text AS input, last_error::text AS last_error, cancel_requested, created_at,"
      + "   NULL::timestamptz AS updated_at, NULL::timestamptz AS finished_at, NULL::timestamptz AS step_deadline,"
      + "   trace_parent, created_by, " + Deadline.COLUMNS + "),"
      + " audited AS (INSERT INTO instance_audit (instance_id, action, user_name, at, source, detail)"
      + "   SELECT i.id, 'start', i.created_by, i.created_at, n.source, n.detail FROM inserted i JOIN n ON n.id = i.id)"
      + " SELECT * FROM inserted";
  /** The Workflow of an instance: what its access is decided on (never changes). */
  private static final String WORKFLOW_OF = "SELECT namespace, workflow FROM workflow_instance WHERE id = ?";
  private static final String FIND_BY_KEYS = "SELECT " + COLUMNS + " FROM workflow_instance"
      + " WHERE namespace = ? AND workflow = ? AND business_key = ANY (?)";
  /** Folds the change log into the totals (see V2__instance_counts.sql); rows of concurrent transactions stay. */
  private static final String FOLD_COUNTS = "WITH moved AS (DELETE FROM instance_count_change"
      + " RETURNING namespace, workflow, status, delta)"
      + " INSERT INTO instance_count AS t (namespace, workflow, status, n)"
      + " SELECT namespace, workflow, status, sum(delta) FROM moved GROUP BY namespace, workflow, status"
      + " ON CONFLICT (namespace, workflow, status) DO UPDATE SET n = t.n + EXCLUDED.n";
  private static final String COUNT_BY_STATUS =
      "SELECT namespace, workflow, status, n FROM instance_count WHERE n <> 0";
  /** The totals plus the changes not folded yet, summed as they are read: nothing written, no row locked. */
  private static final String COUNT_BY_STATUS_NOW = "SELECT namespace, workflow, status, sum(n) AS n FROM ("
      + "SELECT namespace, workflow, status, n FROM instance_count"
      + " UNION ALL SELECT namespace, workflow, status, delta FROM instance_count_change) c"
      + " GROUP BY namespace, workflow, status HAVING sum(n) <> 0";
  private static final String ACTIVE_WORKFLOWS =
      "SELECT DISTINCT workflow FROM workflow_instance WHERE finished_at IS NULL";
  /** The instances going forward past their deadline, soonest first (the partial index of V10). */
  private static final String PAST_DEADLINE = "SELECT id FROM workflow_instance WHERE status = 'RUNNING'"
      + " AND deadline IS NOT NULL AND deadline <= now() ORDER BY deadline LIMIT ?";
  private static final String ENDED_AMONG = "SELECT id FROM workflow_instance WHERE id = ANY (?)"
      + " AND finished_at IS NOT NULL";
  private static final String RENEW_DEADLINE = "UPDATE workflow_instance SET deadline = to_timestamp(? / 1000.0)"
      + " WHERE id = ?";
  private static final String PURGE = "DELETE FROM workflow_instance WHERE id IN (SELECT id FROM workflow_instance"
      + " WHERE finished_at < now() - (?::bigint * interval '1 millisecond') ORDER BY finished_at LIMIT ?"
      + " FOR UPDATE SKIP LOCKED)";

  /** Locks the row for the rest of the transaction: events, timeouts and API calls for one instance take turns. */
  public Optional<InstanceRecord> lock(Connection c, UUID id) throws SQLException {
    return one(c, LOCK, id);
  }

  /** A batch's instances, locked, and their steps. */
  public record LockedBatch(Map<UUID, InstanceRecord> instances, Map<UUID, List<StepState>> steps) {}

  /**
   * Locks several rows at once, in id order (every caller locks in that order, so batches cannot deadlock), and reads
   * their steps as {@link StepStore#load} does: sent together with the transaction's plan setting
   * ({@link Database#GENERIC_PLANS}), so the step loop's batch costs two round trips fewer (the steps of an instance
   * the caller then turns away are read for nothing: rare). The records carry no timestamps (null): the step loop
   * does not need them.
   */
  public LockedBatch lockAllWithSteps(Connection c, Collection<UUID> ids) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(LOCK_ALL_WITH_STEPS)) {
      Array idArray = c.createArrayOf("uuid", ids.toArray());
      ps.setArray(1, idArray);
      ps.setArray(2, idArray);
      nextResult(ps, ps.execute(), "the locked instances");
      Map<UUID, InstanceRecord> rows = new HashMap<>();
      try (ResultSet rs = ps.getResultSet()) {
        while (rs.next()) {
          InstanceRecord r = map(rs);
          rows.put(r.id(), r);
        }
      }
      if (!ps.getMoreResults()) {
        throw new IllegalStateException("the steps' result is missing");
      }
      try (ResultSet rs = ps.getResultSet()) {
        return new LockedBatch(rows, StepStore.byInstance(rs));
      }
    }
  }

  public Optional<InstanceRecord> find(Connection c, UUID id) throws SQLException {
    return one(c, FIND, id);
  }

  /** The instances of a workflow with these business keys (those that exist), by business key. */
  public Map<String, InstanceRecord> findByBusinessKeys(Connection c, String namespace, String workflow,
      Collection<String> businessKeys) throws SQLException {
    Map<String, InstanceRecord> found = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(FIND_BY_KEYS)) {
      ps.setString(1, namespace);
      ps.setString(2, workflow);
      ps.setArray(3, c.createArrayOf("text", businessKeys.toArray()));
      for (InstanceRecord r : all(ps)) {
        found.put(r.businessKey(), r);
      }
    }
    return found;
  }

  /** The namespace and name of the Workflow an instance belongs to, or empty when there is no such instance. */
  public Optional<WorkflowName> workflowOf(Connection c, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(WORKFLOW_OF)) {
      ps.setObject(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(new WorkflowName(rs.getString(1), rs.getString(2))) : Optional.empty();
      }
    }
  }

  /** Locks the row unless another transaction holds it (then empty: the timer sweep comes back later). */
  public Optional<InstanceRecord> lockIfFree(Connection c, UUID id) throws SQLException {
    return one(c, LOCK_IF_FREE, id);
  }

  /**
   * Inserts new instances in one statement, in the order given, not yet dispatched (the caller applies the start
   * decisions in the same transaction).
   *
   * @return the rows inserted, by id (without their timestamps but created_at, the transaction's time); an instance
   *     whose business key exists already is not among them
   */
  public Map<UUID, InstanceRecord> insertAllAbsent(Connection c, List<NewInstance> news) throws SQLException {
    Map<UUID, InstanceRecord> inserted = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(INSERT_ALL)) {
      int n = news.size();
      UUID[] ids = new UUID[n];
      String[] namespaces = new String[n];
      String[] workflows = new String[n];
      Integer[] revisions = new Integer[n];
      String[] keys = new String[n];
      String[] inputs = new String[n];
      String[] traces = new String[n];
      String[] users = new String[n];
      String[] sources = new String[n];
      String[] details = new String[n];
      Long[] timeouts = new Long[n];
      for (int i = 0; i < n; i++) {
        NewInstance x = news.get(i);
        ids[i] = x.id();
        namespaces[i] = x.namespace();
        workflows[i] = x.workflow();
        revisions[i] = x.revision();
        keys[i] = x.businessKey();
        inputs[i] = x.inputJson();
        traces[i] = x.traceparent();
        users[i] = x.startedBy().user();
        sources[i] = x.startedBy().source();
        details[i] = x.detail();
        timeouts[i] = x.timeout() == null ? null : x.timeout().toMillis();
      }
      ps.setArray(1, c.createArrayOf("uuid", ids));
      ps.setArray(2, c.createArrayOf("text", namespaces));
      ps.setArray(3, c.createArrayOf("text", workflows));
      ps.setArray(4, c.createArrayOf("integer", revisions));
      ps.setArray(5, c.createArrayOf("text", keys));
      ps.setArray(6, c.createArrayOf("text", inputs));
      ps.setArray(7, c.createArrayOf("text", traces));
      ps.setArray(8, c.createArrayOf("text", users));
      ps.setArray(9, c.createArrayOf("text", sources));
      ps.setArray(10, c.createArrayOf("text", details));
      ps.setArray(11, c.createArrayOf("bigint", timeouts));
      nextResult(ps, ps.execute(), "the inserted instances");
      try (ResultSet rs = ps.getResultSet()) {
        while (rs.next()) {
          InstanceRecord r = map(rs);
          inserted.put(r.id(), r);
        }
      }
    }
    return inserted;
  }

  /** Steps past the plan setting's result (a statement's own first result) to the one that has rows. */
  private static void nextResult(PreparedStatement ps, boolean firstHasRows, String what) throws SQLException {
    if (firstHasRows || !ps.getMoreResults()) {
      throw new IllegalStateException(what + " are not where they should be in the results");
    }
  }

  /** Newest first, with optional filters. */
  public List<InstanceRecord> list(Connection c, String namespace, String workflow, InstanceStatus status,
      String businessKey, int limit) throws SQLException {
    if (status == null && businessKey == null) {
      return newestOfAnyStatus(c, namespace, workflow, limit);
    }
    StringBuilder sql = new StringBuilder("SELECT ").append(COLUMNS)
        .append(" FROM workflow_instance WHERE namespace = ? AND workflow = ?");
    if (status != null) {
      sql.append(" AND status = ?");
    }
    if (businessKey != null) {
      sql.append(" AND business_key = ?");
    }
    sql.append(" ORDER BY created_at DESC, id LIMIT ?");
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int i = 1;
      ps.setString(i++, namespace);
      ps.setString(i++, workflow);
      if (status != null) {
        ps.setString(i++, status.name());
      }
      if (businessKey != null) {
        ps.setString(i++, businessKey);
      }
      ps.setInt(i, limit);
      return all(ps);
    }
  }

  /**
   * What a search asks for (docs/design.md#interfaces, the search): every field optional; {@code beforeAt} and
   * {@code beforeId} are where the previous page stopped.
   */
  public record Search(String namespace, String workflow, InstanceStatus status, String businessKeyPrefix,
      String step, String errorCode, java.time.Instant createdAfter, java.time.Instant createdBefore,
      java.time.Instant beforeAt, UUID beforeId, int limit) {}

  /**
   * A page of a search, newest first by creation time then id (a stable order, so the next page begins exactly where
   * this one ends). Indexes (V13): creation time for searches across Workflows, the last error's code for those by
   * code; the list index for those of one Workflow and status.
   */
  public List<InstanceRecord> search(Connection c, Search q) throws SQLException {
    List<Object> args = new ArrayList<>();
    String sql = "SELECT " + COLUMNS + " FROM workflow_instance WHERE " + where(q, args)
        + " ORDER BY created_at DESC, id DESC LIMIT ?";
    args.add(q.limit());
    try (PreparedStatement ps = prepared(c, sql, args)) {
      return all(ps);
    }
  }

  /** How many instances a search finds, every page together (a bulk operation's {@code matched}). */
  public long countMatching(Connection c, Search q) throws SQLException {
    List<Object> args = new ArrayList<>();
    try (PreparedStatement ps = prepared(c, "SELECT count(*) FROM workflow_instance WHERE " + where(q, args), args);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The conditions of a search, its arguments added to {@code args} in order. */
  private static String where(Search q, List<Object> args) {
    StringBuilder sql = new StringBuilder("true");
    if (q.namespace() != null) {
      sql.append(" AND namespace = ?");
      args.add(q.namespace());
    }
    if (q.workflow() != null) {
      sql.append(" AND workflow = ?");
      args.add(q.workflow());
    }
    if (q.status() != null) {
      sql.append(" AND status = ?");
      args.add(q.status().name());
    }
    if (q.businessKeyPrefix() != null) {
      sql.append(" AND business_key LIKE ? ESCAPE '\\'");
      args.add(q.businessKeyPrefix().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
    }
    if (q.step() != null) { // where its last error is, or where it is now
      sql.append(" AND (last_error->>'step' = ? OR current_step_name = ?)");
      args.add(q.step());
      args.add(q.step());
    }
    if (q.errorCode() != null) {
      sql.append(" AND last_error IS NOT NULL AND last_error->>'errorCode' = ?");
      args.add(q.errorCode());
    }
    if (q.createdAfter() != null) {
      sql.append(" AND created_at >= ?");
      args.add(java.sql.Timestamp.from(q.createdAfter()));
    }
    if (q.createdBefore() != null) {
      sql.append(" AND created_at < ?");
      args.add(java.sql.Timestamp.from(q.createdBefore()));
    }
    if (q.beforeAt() != null) {
      sql.append(" AND (created_at, id) < (?, ?)");
      args.add(java.sql.Timestamp.from(q.beforeAt()));
      args.add(q.beforeId());
    }
    return sql.toString();
  }

  private static PreparedStatement prepared(Connection c, String sql, List<Object> args) throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < args.size(); i++) {
      ps.setObject(i + 1, args.get(i));
    }
    return ps;
  }

  /**
   * Newest first without a status: the list index is (namespace, workflow, status, created_at), so one ordered scan
   * per status, each stopping after {@code limit} rows, merged (instead of sorting every instance of the workflow:
   * seconds with a million finished ones).
   */
  private List<InstanceRecord> newestOfAnyStatus(Connection c, String namespace, String workflow, int limit)
      throws SQLException {
    StringBuilder sql = new StringBuilder("SELECT * FROM (");
    InstanceStatus[] statuses = InstanceStatus.values();
    for (int i = 0; i < statuses.length; i++) {
      sql.append(i == 0 ? "" : " UNION ALL ").append("(SELECT ").append(COLUMNS)
          .append(" FROM workflow_instance WHERE namespace = ? AND workflow = ? AND status = ?")
          .append(" ORDER BY created_at DESC, id LIMIT ?)");
    }
    sql.append(") newest ORDER BY created_at DESC, id LIMIT ?");
    try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
      int p = 1;
      for (InstanceStatus st : statuses) {
        ps.setString(p++, namespace);
        ps.setString(p++, workflow);
        ps.setString(p++, st.name());
        ps.setInt(p++, limit);
      }
      ps.setInt(p, limit);
      return all(ps);
    }
  }

  /**
   * Instance counts per namespace, workflow and status (the metrics gauge, {@code /api/v1/counts}): folds the changes
   * logged since the last call into the totals and reads them, at a cost that does not grow with the table. The
   * caller commits (the fold writes).
   */
  public List<StatusCount> countByStatus(Connection c) throws SQLException {
    try (PreparedStatement fold = c.prepareStatement(FOLD_COUNTS)) {
      fold.executeUpdate();
    }
    return counts(c, COUNT_BY_STATUS);
  }

  /**
   * The same counts as of the caller's transaction, read only (the web UI, which must not wait for the fold's locks
   * nor hold them): the totals plus the changes logged since the last fold, which runs every metrics refresh, so
   * that log stays short.
   */
  public List<StatusCount> countByStatusNow(Connection c) throws SQLException {
    return counts(c, COUNT_BY_STATUS_NOW);
  }

  private static List<StatusCount> counts(Connection c, String sql) throws SQLException {
    List<StatusCount> counts = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        counts.add(new StatusCount(rs.getString("namespace"), rs.getString("workflow"), rs.getString("status"),
            rs.getLong("n")));
      }
    }
    return counts;
  }

  /** Names of the workflows that still have unfinished instances (their queues must keep being consumed). */
  public List<String> workflowsWithActiveInstances(Connection c) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(ACTIVE_WORKFLOWS); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  /**
   * Up to {@code limit} instances going forward whose own deadline has passed, soonest first (not locked: the timer
   * sweep handles each on its own).
   */
  public List<UUID> instancesPastDeadline(Connection c, int limit) throws SQLException {
    List<UUID> ids = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(PAST_DEADLINE)) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ids.add(rs.getObject(1, UUID.class));
        }
      }
    }
    return ids;
  }

  /** Those of the given instances that have ended (by whichever replica), for requests waiting for their end. */
  public List<UUID> endedAmong(Connection c, Collection<UUID> ids) throws SQLException {
    List<UUID> ended = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(ENDED_AMONG)) {
      ps.setArray(1, c.createArrayOf("uuid", ids.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          ended.add(rs.getObject(1, UUID.class));
        }
      }
    }
    return ended;
  }

  /** Gives a locked instance a new deadline (a retry's: its timeout counts again from the retry). */
  public void renewDeadline(Connection c, UUID id, java.time.Instant deadline) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(RENEW_DEADLINE)) {
      ps.setLong(1, deadline.toEpochMilli());
      ps.setObject(2, id);
      ps.executeUpdate();
    }
  }

  /** Deletes up to {@code batch} instances finished more than {@code age} ago, with their steps and signals (cascade). */
  public int purgeFinished(Connection c, Duration age, int batch) throws SQLException {
    return Jdbc.purge(c, PURGE, age, batch);
  }

  private Optional<InstanceRecord> one(Connection c, String sql, UUID id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setObject(1, id);
      return first(ps);
    }
  }

  private Optional<InstanceRecord> first(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      return rs.next() ? Optional.of(map(rs)) : Optional.empty();
    }
  }

  private List<InstanceRecord> all(PreparedStatement ps) throws SQLException {
    List<InstanceRecord> rows = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(map(rs));
      }
    }
    return rows;
  }

  private static InstanceRecord map(ResultSet rs) throws SQLException {
    return new InstanceRecord(
        rs.getObject("id", UUID.class),
        rs.getString("namespace"),
        rs.getString("workflow"),
        rs.getInt("revision"),
        rs.getString("business_key"),
        InstanceStatus.valueOf(rs.getString("status")),
        Phase.valueOf(rs.getString("phase")),
        rs.getString("current_step_name"),
        rs.getInt("attempt"),
        Jdbc.instant(rs, "step_started_at"),
        Jdbc.instant(rs, "step_deadline"),
        rs.getString("input"),
        rs.getString("last_error"),
        rs.getBoolean("cancel_requested"),
        Jdbc.instant(rs, "created_at"),
        Jdbc.instant(rs, "updated_at"),
        Jdbc.instant(rs, "finished_at"),
        rs.getString("trace_parent"),
        rs.getString("created_by"),
        Deadline.of(rs),
        rs.getBoolean("past_deadline"));
  }

  /**
   * The instance's own deadline as the queries read and write it: in epoch milliseconds (a number, which the driver
   * reads without the calendar computation of a timestamp: the step loop's lock reads it), to the millisecond, as the
   * deadlines of commands are.
   */
  private static final class Deadline {
    static final String COLUMNS = "(extract(epoch FROM deadline) * 1000)::bigint AS deadline_ms,"
        + " coalesce(deadline <= now(), false) AS past_deadline";
    /** A new instance's: its creation time (the transaction's) plus its revision's timeout, or none. */
    static final String FROM_NOW = "date_trunc('milliseconds', now()) + timeout_ms * interval '1 millisecond'";

    static java.time.Instant of(ResultSet rs) throws SQLException {
      long ms = rs.getLong("deadline_ms");
      return rs.wasNull() ? null : java.time.Instant.ofEpochMilli(ms);
    }
  }

  /**
   * What a new instance starts with.
   *
   * @param startedBy who started it: its {@code created_by} and its audit entry
   * @param detail the audit entry's detail ({@code batch} for an item of a batch), or null
   * @param timeout its revision's {@code spec.timeout}: its deadline is its creation time plus this; null for none
   */
  public record NewInstance(UUID id, String namespace, String workflow, int revision, String businessKey,
      String inputJson, String traceparent, Actor startedBy, String detail, Duration timeout) {}

  /** A Workflow by namespace and name. */
  public record WorkflowName(String namespace, String name) {}

  /** One group of the per-status count. */
  public record StatusCount(String namespace, String workflow, String status, long count) {}
}
