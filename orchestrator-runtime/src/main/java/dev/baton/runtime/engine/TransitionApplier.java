package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.runtime.engine.Decision.Change;
import dev.baton.runtime.engine.Move.Dispatch;
import dev.baton.runtime.engine.Move.Finish;
import dev.baton.runtime.json.Json;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.TransitionBatch;
import dev.baton.runtime.store.TransitionWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.UUID;

/**
 * Turns a {@link Change} into writes, on an instance row the caller has locked: end the execution in flight, record
 * outputs and the last error, and either finish the instance or start the next execution and put its command in the
 * outbox (docs/design.md#runtime-semantics: state change and command commit together). Writes are collected in a {@link TransitionBatch}
 * so that many transitions share round trips; the caller flushes it inside the same transaction.
 */
public final class TransitionApplier {

  private final CommandComposer composer;
  private final TransitionWriter writer;

  public TransitionApplier(CommandComposer composer, TransitionWriter writer) {
    this.composer = composer;
    this.writer = writer;
  }

  /** Plans one change and writes it at once: for callers that move one instance at a time. */
  public Applied apply(Connection c, InstanceRecord instance, WorkflowDefinition definition, Change change,
      JsonNode output) throws SQLException {
    TransitionBatch batch = new TransitionBatch();
    Applied applied = plan(batch, instance, definition, change, output);
    flush(c, batch);
    return applied;
  }

  public void flush(Connection c, TransitionBatch batch) throws SQLException {
    writer.flush(c, batch);
  }

  /**
   * Adds the writes of one change to {@code batch}. An instance may appear at most once per batch: its next
   * execution id is only known when the batch is flushed.
   *
   * @param output the output of a successful execution (null otherwise)
   * @return the instance status after the change and whether a command was written to the outbox
   */
  public Applied plan(TransitionBatch batch, InstanceRecord instance, WorkflowDefinition definition, Change change,
      JsonNode output) {
    Outcome outcome = change.outcome();
    boolean succeeded = outcome != null && outcome.status() == ExecutionStatus.SUCCEEDED;
    if (outcome != null && instance.currentExecutionId() != null) {
      batch.end(new TransitionBatch.ExecutionEnd(instance.currentExecutionId(), outcome.status(),
          succeeded && output != null ? Json.write(output) : null, outcome.errorCode(), outcome.reason()));
    }

    ObjectNode outputs = null;
    if (succeeded && instance.phase() == Phase.FORWARD) {
      outputs = Json.readObject(instance.outputsJson());
      outputs.set(instance.stepName(), output == null ? NullNode.getInstance() : output);
    }
    String outputsJson = outputs == null ? null : Json.write(outputs);
    String lastErrorJson = change.recordsError() ? lastError(instance, definition, outcome) : null;

    if (change.next() instanceof Finish f) {
      batch.finish(new TransitionBatch.Finish(instance.id(), f.status(), outputsJson, lastErrorJson));
      return new Applied(f.status(), false);
    }
    Dispatch d = (Dispatch) change.next();
    StepDefinition step = definition.step(d.stepIndex());
    if (outputs == null) {
      outputs = Json.readObject(instance.outputsJson());
    }
    UUID messageId = RandomIds.next();
    batch.dispatch(new TransitionBatch.Dispatch(instance.id(), d.status(), d.phase(), step.index(), step.name(),
        step.actionFor(d.phase()), d.attempt(), d.dispatches(), step.timeout(), messageId,
        composer.compose(messageId, new CommandComposer.Subject(instance.id(), instance.namespace(),
            instance.businessKey(), definition, step, d.phase(), d.attempt()),
            Json.readObject(instance.inputJson()), outputs),
        outputsJson, lastErrorJson));
    return new Applied(d.status(), true);
  }

  /** "Which step, which attempt, and why": what GET shows as lastError. */
  private static String lastError(InstanceRecord instance, WorkflowDefinition definition, Outcome outcome) {
    StepDefinition step = definition.step(instance.stepIndex());
    ObjectNode e = Json.object();
    e.put("step", step.name());
    e.put("kind", instance.phase().executionKind());
    e.put("action", step.actionFor(instance.phase()));
    e.put("attempt", instance.attempt());
    e.put("status", outcome.status().name());
    e.put("errorCode", outcome.errorCode());
    e.put("reason", outcome.reason());
    e.put("at", Instant.now().toString());
    return Json.write(e);
  }

  /** The result of applying a change. */
  public record Applied(InstanceStatus status, boolean dispatched) {}
}
