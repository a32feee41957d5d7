package dev.baton.runtime.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * Sends a {@link TransitionBatch} as ONE statement, whatever its size: each kind of write is a data-modifying CTE
 * fed by arrays ({@code unnest}), so the database parses, plans and runs one statement per batch instead of one per
 * row and kind (a step used to cost seven statements; now a batch of events costs four round trips in all: lock,
 * mark processed, this, commit). What it writes is unchanged: executions ended, new executions started under ids
 * drawn from the sequence, their commands queued in the outbox, instances pointed at their new execution or
 * finished.
 */
public final class TransitionWriter {

  /*
   * Notes on the statement:
   * - every data-modifying CTE runs exactly once, whether the main query reads it or not; the final SELECT reads
   *   their counts only so that a mistake shows up as a wrong count in tests rather than silently;
   * - "d" is MATERIALIZED so that nextval() runs once per dispatch although two CTEs read it;
   * - an instance appears at most once per batch (TransitionApplier's contract), so the two UPDATEs of
   *   workflow_instance touch disjoint rows, as a statement must;
   * - rows inserted by earlier statements of the transaction (a new instance, on start) are visible here;
   * - outbox ids follow the order of the arrays, which is the order the commands were decided in;
   * - each UPDATE also says "id = ANY (the ids)": the statement is prepared once per connection and then runs on a
   *   generic plan, which cannot see how short the arrays are; without that condition it may join by scanning the
   *   whole table (measured: a sequential scan of workflow_instance per batch), with it the rows are found through
   *   the primary key.
   */
  private static final String FLUSH = "WITH"
      + " e AS (SELECT * FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[])"
      + "   AS e(id, status, output, error_code, error_reason)),"
      + " ended AS (UPDATE step_execution x SET status = e.status, finished_at = now(), output = e.output::jsonb,"
      + "   error_code = e.error_code, error_reason = e.error_reason FROM e WHERE x.id = e.id"
      + "   AND x.id = ANY (?::bigint[]) RETURNING 1),"
      + " d AS MATERIALIZED (SELECT d.*, nextval('step_execution_id_seq') AS execution_id FROM unnest(?::uuid[],"
      + "   ?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::int[], ?::int[], ?::bigint[],"
      + "   ?::uuid[], ?::text[], ?::text[]) AS d(instance_id, status, phase, step_index, step_name, kind, action,"
      + "   attempt, dispatches, timeout_ms, message_id, outputs, last_error)),"
      + " started AS (INSERT INTO step_execution (id, instance_id, step_index, step_name, kind, action, attempt,"
      + "   status, command_message_id) SELECT execution_id, instance_id, step_index, step_name, kind, action,"
      + "   attempt, 'RUNNING', message_id FROM d RETURNING 1),"
      + " queued AS (INSERT INTO outbox (message_id, exchange, routing_key, correlation_id, headers, body)"
      + "   SELECT o.message_id, o.exchange, o.routing_key, o.correlation_id, o.headers::jsonb, o.body"
      + "   FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::bytea[])"
      + "   AS o(message_id, exchange, routing_key, correlation_id, headers, body) RETURNING 1),"
      + " dispatched AS (UPDATE workflow_instance w SET status = d.status, phase = d.phase,"
      + "   current_step_index = d.step_index, current_step_name = d.step_name, current_execution_id = d.execution_id,"
      + "   attempt = d.attempt, dispatches = d.dispatches, step_started_at = now(),"
      + "   step_deadline = now() + (d.timeout_ms * interval '1 millisecond'),"
      + "   outputs = coalesce(d.outputs::jsonb, w.outputs), last_error = coalesce(d.last_error::jsonb, w.last_error),"
      + "   finished_at = NULL, updated_at = now() FROM d WHERE w.id = d.instance_id"
      + "   AND w.id = ANY (?::uuid[]) RETURNING 1),"
      + " f AS (SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[])"
      + "   AS f(instance_id, status, outputs, last_error)),"
      + " finished AS (UPDATE workflow_instance w SET status = f.status,"
      + "   outputs = coalesce(f.outputs::jsonb, w.outputs), last_error = coalesce(f.last_error::jsonb, w.last_error),"
      + "   step_deadline = NULL, finished_at = now(), updated_at = now() FROM f WHERE w.id = f.instance_id"
      + "   AND w.id = ANY (?::uuid[]) RETURNING 1)"
      + " SELECT (SELECT count(*) FROM ended), (SELECT count(*) FROM started), (SELECT count(*) FROM queued),"
      + " (SELECT count(*) FROM dispatched), (SELECT count(*) FROM finished)";

  public TransitionWriter(InstanceStore instances, StepExecutionStore executions, OutboxStore outbox) {
    // The stores keep the reads; every write of a transition is in FLUSH.
  }

  public void flush(Connection c, TransitionBatch batch) throws SQLException {
    List<TransitionBatch.ExecutionEnd> ends = batch.ends;
    List<TransitionBatch.Dispatch> dispatches = batch.dispatches;
    List<TransitionBatch.Finish> finishes = batch.finishes;
    if (ends.isEmpty() && dispatches.isEmpty() && finishes.isEmpty()) {
      return;
    }
    int ne = ends.size();
    Long[] endIds = new Long[ne];
    String[] endStatus = new String[ne];
    String[] endOutput = new String[ne];
    String[] endCode = new String[ne];
    String[] endReason = new String[ne];
    for (int i = 0; i < ne; i++) {
      TransitionBatch.ExecutionEnd e = ends.get(i);
      endIds[i] = e.executionId();
      endStatus[i] = e.status().name();
      endOutput[i] = e.outputJson();
      endCode[i] = e.errorCode();
      endReason[i] = e.errorReason();
    }
    int nd = dispatches.size();
    UUID[] dInstance = new UUID[nd];
    String[] dStatus = new String[nd];
    String[] dPhase = new String[nd];
    Integer[] dIndex = new Integer[nd];
    String[] dName = new String[nd];
    String[] dKind = new String[nd];
    String[] dAction = new String[nd];
    Integer[] dAttempt = new Integer[nd];
    Integer[] dDispatches = new Integer[nd];
    Long[] dTimeout = new Long[nd];
    UUID[] dMessage = new UUID[nd];
    String[] dOutputs = new String[nd];
    String[] dError = new String[nd];
    String[] oExchange = new String[nd];
    String[] oKey = new String[nd];
    String[] oCorrelation = new String[nd];
    String[] oHeaders = new String[nd];
    byte[][] oBody = new byte[nd][];
    for (int i = 0; i < nd; i++) {
      TransitionBatch.Dispatch d = dispatches.get(i);
      dInstance[i] = d.instanceId();
      dStatus[i] = d.status().name();
      dPhase[i] = d.phase().name();
      dIndex[i] = d.stepIndex();
      dName[i] = d.stepName();
      dKind[i] = d.phase().executionKind();
      dAction[i] = d.action();
      dAttempt[i] = d.attempt();
      dDispatches[i] = d.dispatches();
      dTimeout[i] = d.timeout() == null ? null : d.timeout().toMillis();
      dMessage[i] = d.commandMessageId();
      dOutputs[i] = d.outputsJson();
      dError[i] = d.lastErrorJson();
      OutboxMessage m = d.command();
      oExchange[i] = m.exchange();
      oKey[i] = m.routingKey();
      oCorrelation[i] = m.correlationId();
      oHeaders[i] = m.headersJson();
      oBody[i] = m.body();
    }
    UUID[] oMessage = new UUID[nd];
    for (int i = 0; i < nd; i++) {
      oMessage[i] = dispatches.get(i).command().messageId();
    }
    int nf = finishes.size();
    UUID[] fInstance = new UUID[nf];
    String[] fStatus = new String[nf];
    String[] fOutputs = new String[nf];
    String[] fError = new String[nf];
    for (int i = 0; i < nf; i++) {
      TransitionBatch.Finish f = finishes.get(i);
      fInstance[i] = f.instanceId();
      fStatus[i] = f.status().name();
      fOutputs[i] = f.outputsJson();
      fError[i] = f.lastErrorJson();
    }
    try (PreparedStatement ps = c.prepareStatement(FLUSH)) {
      int p = 1;
      ps.setArray(p++, array(c, "bigint", endIds));
      ps.setArray(p++, array(c, "text", endStatus));
      ps.setArray(p++, array(c, "text", endOutput));
      ps.setArray(p++, array(c, "text", endCode));
      ps.setArray(p++, array(c, "text", endReason));
      ps.setArray(p++, array(c, "bigint", endIds)); // ended: id = ANY
      ps.setArray(p++, array(c, "uuid", dInstance));
      ps.setArray(p++, array(c, "text", dStatus));
      ps.setArray(p++, array(c, "text", dPhase));
      ps.setArray(p++, array(c, "integer", dIndex));
      ps.setArray(p++, array(c, "text", dName));
      ps.setArray(p++, array(c, "text", dKind));
      ps.setArray(p++, array(c, "text", dAction));
      ps.setArray(p++, array(c, "integer", dAttempt));
      ps.setArray(p++, array(c, "integer", dDispatches));
      ps.setArray(p++, array(c, "bigint", dTimeout));
      ps.setArray(p++, array(c, "uuid", dMessage));
      ps.setArray(p++, array(c, "text", dOutputs));
      ps.setArray(p++, array(c, "text", dError));
      ps.setArray(p++, array(c, "uuid", oMessage));
      ps.setArray(p++, array(c, "text", oExchange));
      ps.setArray(p++, array(c, "text", oKey));
      ps.setArray(p++, array(c, "text", oCorrelation));
      ps.setArray(p++, array(c, "text", oHeaders));
      ps.setArray(p++, array(c, "bytea", oBody));
      ps.setArray(p++, array(c, "uuid", dInstance)); // dispatched: id = ANY
      ps.setArray(p++, array(c, "uuid", fInstance));
      ps.setArray(p++, array(c, "text", fStatus));
      ps.setArray(p++, array(c, "text", fOutputs));
      ps.setArray(p++, array(c, "text", fError));
      ps.setArray(p, array(c, "uuid", fInstance)); // finished: id = ANY
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        rs.getLong(1); // executions ended: as before, an execution row that is gone is not an error
        check("executions started", nd, rs.getLong(2));
        check("commands queued", nd, rs.getLong(3));
        check("instances dispatched", nd, rs.getLong(4));
        check("instances finished", nf, rs.getLong(5));
      }
    }
  }

  private static Array array(Connection c, String type, Object[] values) throws SQLException {
    return c.createArrayOf(type, values);
  }

  /** A row that should have been written and was not means a locked instance changed under us: roll back. */
  private static void check(String what, int expected, long written) {
    if (written != expected) {
      throw new IllegalStateException(what + ": expected " + expected + " row(s), wrote " + written);
    }
  }
}
