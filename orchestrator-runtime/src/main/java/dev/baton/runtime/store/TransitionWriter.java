package dev.baton.runtime.store;

import dev.baton.runtime.core.AttemptDeadline;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.Transition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Writes the transitions of a batch as ONE statement, whatever its size: each kind of write is a data-modifying CTE
 * fed by arrays ({@code unnest}), so the database parses, plans and runs one statement per batch instead of one per
 * row and kind (a batch of events costs three round trips in all: lock and load the steps, this, commit). It writes
 * the step rows (attempts ended, new attempts, late results), queues the commands in the outbox, marks the signals
 * waits consumed, withdraws the commands of instances that ended or were cancelled, and moves the instances; the
 * statement holds only the kinds of write the batch has.
 */
public final class TransitionWriter {

  /*
   * Notes on the statement:
   * - every data-modifying CTE runs exactly once, whether the main query reads it or not; the final SELECT reads
   *   their counts so that a mistake shows up as a wrong count (and a rollback) rather than silently; there are up to
   *   2^6 statements, each prepared once per connection (pgjdbc's cache holds 256), a handful in practice;
   * - all CTEs see the same snapshot: "withdrawn" never sees the commands "queued" inserts in the same statement
   *   (a cancel that compensates withdraws the forward commands and queues the compensation at once);
   * - "withdrawn" waits for a row the relay holds (it is being published, normally for milliseconds, at most for
   *   the relay's confirm timeout): then it is gone (published) or still there (the broker refused it), and deleted;
   *   skipping it instead would let a refused command be delivered later, after its instance ended. The relay never
   *   waits for an instance row, so this cannot deadlock;
   * - an instance appears at most once per batch (the engine's contract), so "moved" touches each row once;
   * - rows inserted by earlier statements of the transaction (a new instance, a signal) are visible here;
   * - outbox ids follow the order of the arrays, which is the order the commands were decided in: the ids come back
   *   sorted, the i-th for the i-th command;
   * - each UPDATE also says "id = ANY (the ids)": the statement is prepared once per connection and then runs on a
   *   generic plan (Database.GENERIC_PLANS), which cannot see how short the arrays are; without that condition it
   *   may join by scanning the whole table, with it the rows are found through the primary key.
   */
  /**
   * The parts of the statement, in this order; a batch's statement holds those it has rows for (every part it holds
   * runs once and is counted, see {@link #statement}). Each opens the tables it writes and their indexes whenever it
   * runs, rows or not: measured at saturation, setting up the statement's parts was an eighth of PostgreSQL's CPU,
   * while most batches have no signal to consume and no command to withdraw.
   */
  enum Part {
    UPDATED(" u AS (SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[],"
        + "   ?::text[], ?::text[]) AS u(id, status, output, error_code, error_reason, finish_seq, result_message_id,"
        + "   late, chosen)),"
        + " updated AS (UPDATE instance_step x SET status = u.status,"
        + "   finished_at = CASE WHEN u.status = 'RUNNING' THEN NULL ELSE coalesce(x.finished_at, now()) END,"
        + "   deadline = CASE WHEN u.status = 'RUNNING' THEN x.deadline END, output = u.output::jsonb,"
        + "   error_code = u.error_code, error_reason = u.error_reason, finish_seq = u.finish_seq,"
        + "   result_message_id = u.result_message_id, late = u.late::jsonb, chosen = u.chosen"
        + "   FROM u WHERE x.id = u.id AND x.id = ANY (?::bigint[]) RETURNING 1)", "updated", "step rows updated"),
    INSERTED(" n AS (SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[],"
        + "   ?::uuid[], ?::int[], ?::bigint[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[])"
        + "   AS n(instance_id, name, kind, parent, attempt, status, action, command_message_id, dispatches,"
        + "   deadline_ms, chosen, finish_seq, output, error_code, error_reason, items)),"
        + " inserted AS (INSERT INTO instance_step (instance_id, name, kind, parent, attempt, status, action,"
        + "   command_message_id, dispatches, deadline, chosen, finish_seq, output, error_code, error_reason,"
        + "   finished_at, items) SELECT instance_id, name, kind, parent, attempt, status, action, command_message_id,"
        + "   dispatches, CASE WHEN status = 'RUNNING' THEN to_timestamp(deadline_ms / 1000.0) END, chosen,"
        + "   finish_seq, output::jsonb, error_code, error_reason, CASE WHEN status <> 'RUNNING' THEN now() END,"
        + "   items::jsonb FROM n RETURNING 1)", "inserted", "step rows inserted"),
    QUEUED(" queued AS (INSERT INTO outbox (message_id, exchange, routing_key, correlation_id, headers, body,"
        + "   instance_id) SELECT o.message_id, o.exchange, o.routing_key, o.correlation_id, o.headers::jsonb, o.body,"
        + "   o.instance_id FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[], ?::uuid[])"
        + "   AS o(message_id, exchange, routing_key, correlation_id, headers, body, instance_id) RETURNING id)",
        "queued", "commands queued"),
    CONSUMED(" consumed AS (UPDATE instance_signal s SET consumed_by = g.step, consumed_at = now()"
        + "   FROM unnest(?::bigint[], ?::text[]) AS g(id, step) WHERE s.id = g.id AND s.id = ANY (?::bigint[])"
        + "   RETURNING 1)", "consumed", "signals consumed"),
    WITHDRAWN(" withdrawn AS (DELETE FROM outbox WHERE instance_id = ANY (?::uuid[]) RETURNING 1)", "withdrawn", null),
    MOVED(" m AS (SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::boolean[], ?::text[], ?::int[], ?::text[],"
        + "   ?::boolean[]) AS m(instance_id, status, phase, cancel_requested, current_step, attempt, last_error,"
        + "   finished)),"
        + " moved AS (UPDATE workflow_instance w SET status = m.status, phase = m.phase,"
        + "   cancel_requested = m.cancel_requested, current_step_name = coalesce(m.current_step, w.current_step_name),"
        + "   attempt = coalesce(m.attempt, w.attempt),"
        + "   step_started_at = CASE WHEN m.current_step IS NULL THEN w.step_started_at ELSE now() END,"
        + "   last_error = coalesce(m.last_error::jsonb, w.last_error),"
        + "   finished_at = CASE WHEN m.finished THEN coalesce(w.finished_at, now()) END, updated_at = now()"
        + "   FROM m WHERE w.id = m.instance_id AND w.id = ANY (?::uuid[]) RETURNING 1)", "moved", "instances moved"),
    /**
     * The slots of limited commands whose step attempts end here, given back in the transaction that ends them
     * (docs/design.md#concurrency-limits): only while some command has a limit. By the slots' primary key (an array,
     * as the UPDATEs' "id = ANY"): a join would let a generic plan read every slot, one per command in flight.
     */
    FREED(" freed AS (DELETE FROM command_slot WHERE message_id = ANY (ARRAY(SELECT x.command_message_id"
        + "   FROM instance_step x WHERE x.id = ANY (?::bigint[]) AND x.command_message_id IS NOT NULL)) RETURNING 1)",
        "freed", null);

    final String cte;
    final String name;
    /** What its count means when it falls short; null: not checked (withdrawals find what is there). */
    final String checked;

    Part(String cte, String name, String checked) {
      this.cte = cte;
      this.name = name;
      this.checked = checked;
    }
  }

  /** The statement of each set of parts (a bit per {@link Part}), built once. */
  private static final String[] STATEMENTS = new String[1 << Part.values().length];

  /**
   * The statement with these parts: their CTEs, then a row with each one's count and, with {@code QUEUED}, the ids
   * of the outbox rows in order.
   */
  static String statement(java.util.Set<Part> parts) {
    int key = 0;
    for (Part p : parts) {
      key |= 1 << p.ordinal();
    }
    String sql = STATEMENTS[key];
    if (sql == null) {
      StringBuilder with = new StringBuilder("WITH");
      StringBuilder select = new StringBuilder(" SELECT ");
      for (Part p : Part.values()) {
        if (parts.contains(p)) {
          with.append(with.length() > 4 ? "," : "").append(p.cte);
          select.append(select.length() > 8 ? ", " : "").append("(SELECT count(*) FROM ").append(p.name).append(')');
        }
      }
      if (parts.contains(Part.QUEUED)) {
        select.append(", (SELECT array_agg(id ORDER BY id) FROM queued)");
      }
      sql = with.append(select).toString();
      STATEMENTS[key] = sql;
    }
    return sql;
  }

  /**
   * One instance's transition, with the commands composed for its dispatches (and, when it ends the instance, its
   * outcome event: {@link OutboxMessage#isInstanceOutcome}).
   *
   * @param lastErrorJson the instance's new lastError as JSON, or null to keep it
   * @param decidedAt when the transition was decided: the deadlines of the attempts it starts count from it, as the
   *     {@code baton-deadline} of their commands does, so that a step times out at the very instant its command
   *     stops being startable
   * @param instanceDeadline the instance's own deadline, or null: no forward task's outlives it
   */
  public record Write(UUID instanceId, Transition transition, List<OutboxMessage> commands, String lastErrorJson,
      Instant decidedAt, Instant instanceDeadline) {

    /** A write for an instance without a deadline of its own. */
    public Write(UUID instanceId, Transition transition, List<OutboxMessage> commands, String lastErrorJson,
        Instant decidedAt) {
      this(instanceId, transition, commands, lastErrorJson, decidedAt, null);
    }

    /**
     * The deadline of an attempt this write starts ({@link AttemptDeadline}: {@code decidedAt} plus its timeout,
     * a forward task's no later than the instance's), or null without one.
     */
    public Instant deadlineOf(StepState started) {
      return AttemptDeadline.of(decidedAt, started, instanceDeadline);
    }
  }

  /**
   * What a write did besides what it was asked: the unpublished commands it withdrew, and the commands it queued
   * with their outbox ids (in the order of the writes and of their commands), for the relay once committed.
   *
   * @param ended the instances it ended, for those waiting for their end once committed
   */
  public record Written(long withdrawn, List<QueuedCommand> queued, List<UUID> ended) {

    static final Written NOTHING = new Written(0, List.of(), List.of());

    public boolean dispatched() {
      return !queued.isEmpty();
    }
  }

  /** Whether some command has a limit (its slots are given back as steps end); read per batch. */
  private final java.util.function.BooleanSupplier limited;

  public TransitionWriter() {
    this(() -> false);
  }

  public TransitionWriter(java.util.function.BooleanSupplier limited) {
    this.limited = limited;
  }

  /** Writes the transitions (each instance at most once) in one statement. */
  public Written write(Connection c, List<Write> writes) throws SQLException {
    Column u = new Column(), n = new Column(), o = new Column(), g = new Column(), w = new Column(),
        m = new Column(), f = new Column();
    boolean freeing = limited.getAsBoolean();
    List<Object> fId = f.of("bigint");
    List<Object> uId = u.of("bigint"), uStatus = u.of("text"), uOutput = u.of("text"), uCode = u.of("text"),
        uReason = u.of("text"), uSeq = u.of("integer"), uMessage = u.of("text"), uLate = u.of("text"),
        uChosen = u.of("text");
    List<Object> nInstance = n.of("uuid"), nName = n.of("text"), nKind = n.of("text"), nParent = n.of("text"),
        nAttempt = n.of("integer"), nStatus = n.of("text"), nAction = n.of("text"), nCommand = n.of("uuid"),
        nDispatches = n.of("integer"), nDeadline = n.of("bigint"), nChosen = n.of("text"), nSeq = n.of("integer"),
        nOutput = n.of("text"), nCode = n.of("text"), nReason = n.of("text"),
        nItems = n.of("text");
    List<Object> oMessage = o.of("uuid"), oExchange = o.of("text"), oKey = o.of("text"),
        oCorrelation = o.of("text"), oHeaders = o.of("text"), oBody = o.of("bytea"), oInstance = o.of("uuid");
    List<OutboxMessage> commands = new ArrayList<>();
    List<Object> gId = g.of("bigint"), gStep = g.of("text");
    List<Object> wInstance = w.of("uuid");
    List<UUID> ended = new ArrayList<>();
    List<Object> mInstance = m.of("uuid"), mStatus = m.of("text"), mPhase = m.of("text"),
        mCancel = m.of("boolean"), mStep = m.of("text"), mAttempt = m.of("integer"), mError = m.of("text"),
        mFinished = m.of("boolean");

    for (Write write : writes) {
      Transition t = write.transition();
      if (!t.writes()) {
        continue;
      }
      for (StepState s : t.rows()) {
        String output = s.output() == null ? null : s.output().toString();
        if (s.id() != null) {
          uId.add(s.id());
          uStatus.add(s.status().name());
          uOutput.add(output);
          uCode.add(s.errorCode());
          uReason.add(s.errorReason());
          uSeq.add(s.finishSeq());
          uMessage.add(s.resultMessageId());
          uLate.add(s.late() == null ? null : s.late().toString());
          uChosen.add(s.chosen());
          if (freeing && s.status() != dev.baton.runtime.core.StepStatus.RUNNING) {
            fId.add(s.id());
          }
        } else {
          nInstance.add(write.instanceId());
          nName.add(s.name());
          nKind.add(s.kind());
          nParent.add(s.parent());
          nAttempt.add(s.attempt());
          nStatus.add(s.status().name());
          nAction.add(s.action());
          nCommand.add(s.commandMessageId());
          nDispatches.add(s.dispatches());
          Instant deadline = write.deadlineOf(s);
          nDeadline.add(deadline == null ? null : deadline.toEpochMilli());
          nChosen.add(s.chosen());
          nSeq.add(s.finishSeq());
          nOutput.add(output);
          nCode.add(s.errorCode());
          nReason.add(s.errorReason());
          nItems.add(s.items() == null ? null : s.items().toString());
        }
      }
      for (OutboxMessage command : write.commands()) {
        commands.add(command);
        oMessage.add(command.messageId());
        oExchange.add(command.exchange());
        oKey.add(command.routingKey());
        oCorrelation.add(command.correlationId());
        oHeaders.add(command.headersJson());
        oBody.add(command.body());
        // An outcome event belongs to no attempt: without the instance, no withdrawal ever takes it back.
        oInstance.add(command.isInstanceOutcome() ? null : write.instanceId());
      }
      for (Transition.SignalUse use : t.signalsUsed()) {
        gId.add(use.signalId());
        gStep.add(use.step());
      }
      if (t.withdrawCommands()) {
        wInstance.add(write.instanceId());
      }
      if (t.moved()) {
        mInstance.add(write.instanceId());
        mStatus.add(t.status().name());
        mPhase.add(t.phase().name());
        mCancel.add(t.cancelRequested());
        mStep.add(t.currentStep());
        mAttempt.add(t.currentStep() == null ? null : t.currentAttempt());
        mError.add(write.lastErrorJson());
        mFinished.add(t.finishes());
        if (t.finishes()) {
          ended.add(write.instanceId());
        }
      }
    }
    if (uId.isEmpty() && nInstance.isEmpty() && mInstance.isEmpty()) {
      return Written.NOTHING;
    }
    java.util.EnumMap<Part, Column> present = new java.util.EnumMap<>(Part.class);
    put(present, Part.UPDATED, u, uId);
    put(present, Part.INSERTED, n, nInstance);
    put(present, Part.QUEUED, o, oMessage);
    put(present, Part.CONSUMED, g, gId);
    put(present, Part.WITHDRAWN, w, wInstance);
    put(present, Part.MOVED, m, mInstance);
    put(present, Part.FREED, f, fId);
    try (PreparedStatement ps = c.prepareStatement(statement(present.keySet()))) {
      Binder b = new Binder(c, ps);
      for (Map.Entry<Part, Column> e : present.entrySet()) {
        b.bind(e.getValue());
        switch (e.getKey()) { // the ids again, for the primary-key condition of the UPDATEs
          case UPDATED -> b.bind("bigint", uId);
          case CONSUMED -> b.bind("bigint", gId);
          case MOVED -> b.bind("uuid", mInstance);
          default -> { }
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        long withdrawn = 0;
        int i = 1;
        for (Map.Entry<Part, Column> e : present.entrySet()) {
          long count = rs.getLong(i++);
          if (e.getKey() == Part.WITHDRAWN) {
            withdrawn = count;
          } else if (e.getKey().checked != null) { // a slot to give back is there only for a limited command
            check(e.getKey().checked, e.getValue().values.get(0).size(), count);
          }
        }
        return new Written(withdrawn, present.containsKey(Part.QUEUED) ? queued(commands, rs.getArray(i)) : List.of(),
            ended);
      }
    }
  }

  private static void put(Map<Part, Column> present, Part part, Column column, List<Object> rows) {
    if (!rows.isEmpty()) {
      present.put(part, column);
    }
  }

  /** The i-th id (sorted) is the i-th command's row: the rows were inserted in the order of the arrays. */
  private static List<QueuedCommand> queued(List<OutboxMessage> commands, java.sql.Array ids) throws SQLException {
    if (commands.isEmpty()) {
      return List.of();
    }
    Long[] sorted = (Long[]) ids.getArray();
    List<QueuedCommand> queued = new ArrayList<>(commands.size());
    for (int i = 0; i < commands.size(); i++) {
      queued.add(new QueuedCommand(sorted[i], commands.get(i)));
    }
    return queued;
  }

  /** The arrays of one CTE, in parameter order. */
  private static final class Column {
    final List<String> types = new ArrayList<>();
    final List<List<Object>> values = new ArrayList<>();

    List<Object> of(String type) {
      List<Object> v = new ArrayList<>();
      types.add(type);
      values.add(v);
      return v;
    }
  }

  private static final class Binder {
    final Connection c;
    final PreparedStatement ps;
    int p = 1;

    Binder(Connection c, PreparedStatement ps) {
      this.c = c;
      this.ps = ps;
    }

    Binder bind(Column column) throws SQLException {
      for (int i = 0; i < column.types.size(); i++) {
        bind(column.types.get(i), column.values.get(i));
      }
      return this;
    }

    Binder bind(String type, List<Object> values) throws SQLException {
      ps.setArray(p++, c.createArrayOf(type, typed(type, values)));
      return this;
    }

    /** pgjdbc encodes an array by its Java element type (byte[][] for bytea, Integer[] for integer, ...). */
    private static Object[] typed(String type, List<Object> values) {
      return switch (type) {
        case "bytea" -> values.toArray(new byte[0][]);
        case "integer" -> values.toArray(new Integer[0]);
        case "bigint" -> values.toArray(new Long[0]);
        case "boolean" -> values.toArray(new Boolean[0]);
        case "uuid" -> values.toArray(new UUID[0]);
        default -> values.toArray(new String[0]);
      };
    }
  }

  /** A row that should have been written and was not means a locked instance changed under us: roll back. */
  private static void check(String what, long expected, long written) {
    if (written != expected) {
      throw new IllegalStateException(what + ": expected " + expected + " row(s), wrote " + written);
    }
  }
}
