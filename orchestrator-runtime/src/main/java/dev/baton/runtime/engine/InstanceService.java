package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore.NewInstance;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.StepStore;
import dev.baton.runtime.tracing.InstanceTracing;
import dev.baton.workflow.WorkflowDefinition;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Start, cancel, retry and signals: each one transaction on a locked instance row, moved by the {@link Engine}. */
public final class InstanceService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InstanceService.class);

  private final Database database;
  private final InstanceStore instances;
  private final StepStore steps;
  private final DefinitionCatalog definitions;
  private final Engine engine;
  private final OutboxSignal outboxSignal;
  private final StartGroups groups;

  public InstanceService(Database database, InstanceStore instances, StepStore steps, DefinitionCatalog definitions,
      Engine engine, OutboxSignal outboxSignal, RuntimeMetrics metrics) {
    this.database = database;
    this.instances = instances;
    this.steps = steps;
    this.definitions = definitions;
    this.engine = engine;
    this.outboxSignal = outboxSignal;
    this.groups = new StartGroups(new StartGroups.Writer() {
      @Override
      public List<Started> startTogether(List<StartGroups.Request> group) throws SQLException {
        return InstanceService.this.startTogether(group);
      }

      @Override
      public Started startAlone(StartGroups.Request request) throws SQLException {
        return InstanceService.this.startAlone(request);
      }
    }, metrics);
  }

  /** The instances' trace (docs/design.md#observability). */
  public InstanceTracing tracing() {
    return engine.tracing();
  }

  /**
   * Starts an instance of the workflow's current spec, or returns the instance that already has this business key
   * (docs/design.md#runtime-semantics: starting twice returns the first instance). Returns once the start is
   * committed; concurrent starts share a transaction ({@link StartGroups}).
   *
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public Started start(String namespace, String workflow, WorkflowSpec spec, String businessKey, String inputJson)
      throws SQLException {
    // The trace is the caller's (the start request's span is current here, not on the writer's thread).
    return groups.submit(new StartGroups.Request(namespace, workflow, spec, businessKey, inputJson,
        engine.tracing().startTraceparent(namespace, workflow), new CompletableFuture<>()));
  }

  /** The starts of a group, in one transaction, inserted in business-key order (see {@link #startAll}). */
  private List<Started> startTogether(List<StartGroups.Request> group) throws SQLException {
    Integer[] order = byBusinessKey(group.size(), i -> group.get(i).businessKey());
    Started[] out = database.inTransaction(c -> {
      Started[] started = new Started[group.size()];
      for (int i : order) {
        started[i] = startIn(c, group.get(i));
      }
      return started;
    });
    if (Arrays.stream(out).anyMatch(Started::created)) {
      outboxSignal.commandsWritten();
    }
    return List.of(out);
  }

  private Started startAlone(StartGroups.Request request) throws SQLException {
    Started started = database.inTransaction(c -> startIn(c, request));
    if (started.created()) {
      outboxSignal.commandsWritten();
    }
    return started;
  }

  /** One start inside the caller's transaction: the new instance, or the one that already has the business key. */
  private Started startIn(Connection c, StartGroups.Request r) throws SQLException {
    WorkflowDefinition definition = definitions.current(c, r.namespace(), r.workflow(), r.spec());
    UUID id = RandomIds.next();
    NewInstance n = new NewInstance(id, r.namespace(), r.workflow(), definition.revision(), r.businessKey(),
        r.inputJson(), r.traceparent());
    Optional<InstanceRecord> inserted = instances.insertIfAbsent(c, n);
    if (inserted.isEmpty()) {
      // The winner of a concurrent start may not have committed yet; the unique index made us wait for it.
      InstanceRecord first = instances.findByBusinessKey(c, r.namespace(), r.workflow(), r.businessKey()).orElseThrow();
      return new Started(false, first, steps.listFor(c, first.id()));
    }
    engine.apply(c, inserted.get(), new Stimulus.Start());
    // What the caller answers with, read in the same transaction (no second one, no second connection).
    return new Started(true, instances.find(c, id).orElseThrow(), steps.listFor(c, id));
  }

  private static Integer[] byBusinessKey(int size, IntFunction<String> key) {
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.comparing(key::apply));
    return order;
  }

  /** Stops taking starts; those waiting are answered first. */
  @Override
  public void close() throws InterruptedException {
    groups.close();
  }

  /**
   * Starts many instances of the workflow's current spec in one transaction: each item as {@link #start} would (a
   * business key already started, earlier or in the same batch, returns that instance), all committed together, so
   * a batch is durable as a whole or not at all. Items are inserted in business-key order, so two batches with
   * keys in common wait for each other instead of deadlocking.
   *
   * @return one result per item, in the order given
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public List<BatchStarted> startAll(String namespace, String workflow, WorkflowSpec spec, List<StartItem> items)
      throws SQLException {
    Integer[] order = byBusinessKey(items.size(), i -> items.get(i).businessKey());
    BatchStarted[] results = database.inTransaction(c -> {
      WorkflowDefinition definition = definitions.current(c, namespace, workflow, spec);
      BatchStarted[] out = new BatchStarted[items.size()];
      for (int i : order) {
        StartItem item = items.get(i);
        UUID id = RandomIds.next();
        NewInstance n = new NewInstance(id, namespace, workflow, definition.revision(), item.businessKey(),
            item.inputJson(), engine.tracing().startTraceparent(namespace, workflow));
        Optional<InstanceRecord> inserted = instances.insertIfAbsent(c, n);
        if (inserted.isEmpty()) {
          InstanceRecord first = instances.findByBusinessKey(c, namespace, workflow, item.businessKey()).orElseThrow();
          out[i] = new BatchStarted(first.id(), first.status(), false);
        } else {
          Transition t = engine.apply(c, inserted.get(), new Stimulus.Start()).transition();
          out[i] = new BatchStarted(id, t.status(), true);
        }
      }
      return out;
    });
    if (Arrays.stream(results).anyMatch(BatchStarted::created)) {
      outboxSignal.commandsWritten();
    }
    return List.of(results);
  }

  /**
   * Cancels a RUNNING or COMPENSATING instance; cancelling a cancelled one again changes nothing.
   *
   * @param compensate undo the completed and unknown-outcome steps first; the instance then ends CANCELLED
   */
  public Result cancel(UUID id, boolean compensate) throws SQLException {
    return change(id, new Stimulus.Cancel(compensate));
  }

  /** Sends the failed steps (or compensation) of a FAILED instance again as new attempts. */
  public Result retry(UUID id) throws SQLException {
    return change(id, new Stimulus.Retry());
  }

  /**
   * Stores a signal for the instance, in the order received; a wait for it consumes it now or when it starts.
   *
   * @return NotFound, Conflict (the instance has finished) or Done
   */
  public Result signal(UUID id, String signal, String bodyJson) throws SQLException {
    return change(id, (c, instance) -> {
      if (!instance.status().isActive()) {
        return Optional.of(new Result.Conflict("instance is " + instance.status()
            + "; signals are taken only while it is RUNNING or COMPENSATING"));
      }
      steps.storeSignal(c, id, signal, bodyJson);
      return Optional.empty();
    }, new Stimulus.SignalStored(signal));
  }

  private Result change(UUID id, Stimulus stimulus) throws SQLException {
    return change(id, (c, instance) -> Optional.empty(), stimulus);
  }

  private Result change(UUID id, Precheck precheck, Stimulus stimulus) throws SQLException {
    Result result = database.inTransaction(c -> {
      Optional<InstanceRecord> locked = instances.lock(c, id);
      if (locked.isEmpty()) {
        return new Result.NotFound();
      }
      Optional<Result> refused = precheck.check(c, locked.get());
      if (refused.isPresent()) {
        return refused.get();
      }
      Engine.Applied applied = engine.apply(c, locked.get(), stimulus);
      Transition t = applied.transition();
      if (t.kind() == Transition.Kind.REFUSED) {
        return new Result.Conflict(t.reason());
      }
      if (applied.withdrawn() > 0) {
        try (LogFields.Scope fields = LogFields.open(id.toString(), locked.get().workflow(), null,
            InstanceTracing.traceIdOf(locked.get().traceparent()))) {
          LOG.info("Instance {}: {} command(s) not yet published were withdrawn", id, applied.withdrawn());
        }
      }
      return new Result.Done(instances.find(c, id).orElseThrow(), steps.listFor(c, id), applied.dispatched());
    });
    if (result instanceof Result.Done d && d.dispatched()) {
      outboxSignal.commandsWritten();
    }
    return result;
  }

  @FunctionalInterface
  private interface Precheck {
    Optional<Result> check(Connection c, InstanceRecord instance) throws SQLException;
  }

  /**
   * A start: whether it created the instance (201) or found it by business key (200), and the instance as it is at
   * the end of the start's transaction with its steps (what the API answers).
   */
  public record Started(boolean created, InstanceRecord current, List<StepState> steps) {}

  /** One start of a batch: a business key and the input (JSON). */
  public record StartItem(String businessKey, String inputJson) {}

  /** What a batch start did for one item: the instance, its status, and whether this start created it. */
  public record BatchStarted(UUID id, InstanceStatus status, boolean created) {}

  /** The outcome of cancel, retry or a signal. */
  public sealed interface Result {
    record NotFound() implements Result {}

    record Conflict(String reason) implements Result {}

    record Done(InstanceRecord instance, List<StepState> steps, boolean dispatched) implements Result {}
  }
}
