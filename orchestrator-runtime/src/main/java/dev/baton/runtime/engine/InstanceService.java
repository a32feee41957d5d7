package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.engine.Decision.Change;
import dev.baton.runtime.engine.Decision.NoChange;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.InstanceStore.NewInstance;
import dev.baton.runtime.store.StepExecutionRecord;
import dev.baton.runtime.store.StepExecutionStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Start, cancel and retry: each one transaction on a locked instance row, moved by {@link Transitions}. */
public final class InstanceService {

  private final Database database;
  private final InstanceStore instances;
  private final DefinitionCatalog definitions;
  private final TransitionApplier applier;
  private final OutboxSignal outboxSignal;
  private final StepExecutionStore executions = new StepExecutionStore();

  public InstanceService(Database database, InstanceStore instances, DefinitionCatalog definitions,
      TransitionApplier applier, OutboxSignal outboxSignal) {
    this.database = database;
    this.instances = instances;
    this.definitions = definitions;
    this.applier = applier;
    this.outboxSignal = outboxSignal;
  }

  /**
   * Starts an instance of the workflow's current spec, or returns the instance that already has this business key
   * (docs/design.md#runtime-semantics: starting twice returns the first instance).
   *
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public Started start(String namespace, String workflow, WorkflowSpec spec, String businessKey, String inputJson)
      throws SQLException {
    Started started = database.inTransaction(c -> {
      WorkflowDefinition definition = definitions.current(c, namespace, workflow, spec);
      UUID id = RandomIds.next();
      NewInstance n = new NewInstance(id, namespace, workflow, definition.revision(), businessKey,
          definition.step(0).name(), inputJson);
      Optional<InstanceRecord> inserted = instances.insertIfAbsent(c, n);
      if (inserted.isEmpty()) {
        // The winner of a concurrent start may not have committed yet; the unique index made us wait for it.
        InstanceRecord first = instances.findByBusinessKey(c, namespace, workflow, businessKey).orElseThrow();
        return new Started(false, first, first, executions.listFor(c, first.id()));
      }
      applier.apply(c, inserted.get(), definition, (Change) Transitions.start(definition), null);
      // What the caller answers with, read in the same transaction (no second one, no second connection).
      return new Started(true, inserted.get(), instances.find(c, id).orElseThrow(), executions.listFor(c, id));
    });
    if (started.created()) {
      outboxSignal.commandsWritten();
    }
    return started;
  }

  /** Cancels a RUNNING or COMPENSATING instance; cancelling a cancelled one again changes nothing. */
  public Result cancel(UUID id) throws SQLException {
    return change(id, (c, instance) -> instance.status() == InstanceStatus.CANCELLED
        ? new NoChange(null)
        : Transitions.cancel(instance.state()));
  }

  /** Sends the failed execution of a FAILED instance again as a new attempt. */
  public Result retry(UUID id) throws SQLException {
    return change(id, (c, instance) -> Transitions.retry(
        definitions.pinned(c, instance.namespace(), instance.workflow(), instance.revision()), instance.state()));
  }

  private Result change(UUID id, Decider decider) throws SQLException {
    Result result = database.inTransaction(c -> {
      Optional<InstanceRecord> locked = instances.lock(c, id);
      if (locked.isEmpty()) {
        return new Result.NotFound();
      }
      InstanceRecord instance = locked.get();
      Decision decision = decider.decide(c, instance);
      if (decision instanceof NoChange n) {
        return n.reason() == null ? new Result.Done(instance, false) : new Result.Conflict(n.reason());
      }
      WorkflowDefinition definition =
          definitions.pinned(c, instance.namespace(), instance.workflow(), instance.revision());
      TransitionApplier.Applied applied = applier.apply(c, instance, definition, (Change) decision, null);
      return new Result.Done(instances.find(c, id).orElseThrow(), applied.dispatched());
    });
    if (result instanceof Result.Done d && d.dispatched()) {
      outboxSignal.commandsWritten();
    }
    return result;
  }

  @FunctionalInterface
  private interface Decider {
    Decision decide(Connection c, InstanceRecord instance) throws SQLException;
  }

  /**
   * A start: whether it created the instance (201) or found it by business key (200), the instance as it was before
   * dispatch, and as it is at the end of the start's transaction with its executions (what the API answers).
   */
  public record Started(boolean created, InstanceRecord instance, InstanceRecord current,
      List<StepExecutionRecord> executions) {}

  /** The outcome of cancel or retry. */
  public sealed interface Result {
    record NotFound() implements Result {}

    record Conflict(String reason) implements Result {}

    record Done(InstanceRecord instance, boolean dispatched) implements Result {}
  }
}
