package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.RandomIds;
import dev.baton.runtime.core.StateMachine;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.Stimulus;
import dev.baton.runtime.core.Transition;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Actor;
import dev.baton.runtime.store.AuditRow;
import dev.baton.runtime.store.AuditStore;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore.NewInstance;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.RefusedCommand;
import dev.baton.runtime.store.StepStore;
import dev.baton.runtime.store.TransitionWriter;
import dev.baton.runtime.tracing.InstanceTracing;
import dev.baton.workflow.WorkflowDefinition;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Start, cancel, retry and signals: each one transaction on a locked instance row, moved by the {@link Engine}. Each
 * is asked for by an {@link Actor}, recorded on the instance in the same transaction (its audit) and told to the
 * {@link AuditLog} once it has committed.
 */
public final class InstanceService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InstanceService.class);

  private final UnitOfWork unitOfWork;
  private final InstanceStore instances;
  private final StepStore steps;
  private final DefinitionCatalog definitions;
  private final Engine engine;
  private final StartGroups groups;
  private final RuntimeMetrics metrics;
  private final AuditStore audit = new AuditStore();

  public InstanceService(UnitOfWork unitOfWork, InstanceStore instances, StepStore steps,
      DefinitionCatalog definitions, Engine engine, RuntimeMetrics metrics) {
    this.unitOfWork = unitOfWork;
    this.instances = instances;
    this.steps = steps;
    this.definitions = definitions;
    this.engine = engine;
    this.metrics = metrics;
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
   * @param actor who asked: the instance's {@code created_by} and its audit entry (a key started before records
   *     nothing)
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public Started start(String namespace, String workflow, WorkflowSpec spec, String businessKey, String inputJson,
      Actor actor) throws SQLException {
    // The trace is the caller's (the start request's span is current here, not on the writer's thread).
    Started started = groups.submit(new StartGroups.Request(namespace, workflow, spec, businessKey, inputJson,
        engine.tracing().startTraceparent(namespace, workflow), actor, new CompletableFuture<>()));
    AuditLog.write(new AuditLog.Line(AuditRow.Action.START.wire(),
        started.created() ? AuditLog.Outcome.CREATED : AuditLog.Outcome.EXISTING, actor, namespace, workflow,
        started.current().id().toString(), null));
    return started;
  }

  /**
   * Starts an instance inside the caller's transaction (a schedule's fire, with the schedule's row held): as
   * {@link #start} does, committed or rolled back with the rest of the caller's work.
   *
   * @param detail the audit entry's detail, e.g. which schedule started it
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public Started startWithin(UnitOfWork.Transaction tx, String namespace, String workflow, WorkflowSpec spec,
      String businessKey, String inputJson, Actor actor, String detail) throws SQLException {
    return startIn(tx, List.of(new Order(namespace, workflow, spec, businessKey, inputJson,
        engine.tracing().startTraceparent(namespace, workflow), actor, detail)), false).get(0);
  }

  /** The starts of a group, in one transaction (see {@link #startIn}). */
  private List<Started> startTogether(List<StartGroups.Request> group) throws SQLException {
    List<Order> orders = group.stream().map(r -> new Order(r.namespace(), r.workflow(), r.spec(), r.businessKey(),
        r.inputJson(), r.traceparent(), r.actor(), null)).toList();
    return unitOfWork.runHot(tx -> startIn(tx, orders, true), (work, commit) -> {
      for (int i = 0; i < orders.size(); i++) {
        metrics.hop(RuntimeMetrics.Hop.START_APPLY, work);
        metrics.hop(RuntimeMetrics.Hop.START_COMMIT, commit);
      }
    });
  }

  private Started startAlone(StartGroups.Request request) throws SQLException {
    return startTogether(List.of(request)).get(0);
  }

  /**
   * A start to make: a single start's request, or an item of a batch.
   *
   * @param detail its audit entry's detail ({@value #BATCH} for an item of a batch), or null
   */
  private record Order(String namespace, String workflow, WorkflowSpec spec, String businessKey, String inputJson,
      String traceparent, Actor actor, String detail) {

    Key key() {
      return new Key(namespace, workflow, businessKey);
    }
  }

  private record Key(String namespace, String workflow, String businessKey) {}

  /**
   * Starts inside the caller's transaction, set-based: one statement inserts every new instance (in business-key
   * order, so two transactions with keys in common wait for each other instead of deadlocking), one writes all their
   * first steps and commands. A business key already started (earlier, by a concurrent transaction the insert waited
   * for, or by an earlier order of the same call) answers with that instance. New instances are answered from what
   * was written, not read back: the rows' timestamps are the transaction's time, which the insert returns.
   *
   * @param withSteps whether the answers carry the instances' steps (single starts answer with them, batches do not)
   * @return one answer per order, in the order given
   */
  private List<Started> startIn(UnitOfWork.Transaction tx, List<Order> orders, boolean withSteps)
      throws SQLException {
    Connection c = tx.connection();
    Integer[] order = byBusinessKey(orders.size(), i -> orders.get(i).businessKey());
    Map<Key, Integer> firstOf = new HashMap<>();
    List<NewInstance> news = new ArrayList<>();
    Map<UUID, Integer> orderOf = new HashMap<>();
    for (int i : order) {
      Order o = orders.get(i);
      if (firstOf.putIfAbsent(o.key(), i) == null) {
        WorkflowDefinition definition = definitions.current(c, o.namespace(), o.workflow(), o.spec());
        UUID id = RandomIds.next();
        news.add(new NewInstance(id, o.namespace(), o.workflow(), definition.revision(), o.businessKey(),
            o.inputJson(), o.traceparent(), o.actor(), o.detail(), definition.timeout()));
        orderOf.put(id, i);
      }
    }
    Map<UUID, InstanceRecord> inserted = instances.insertAllAbsent(c, news);
    Started[] out = new Started[orders.size()];
    List<InstanceRecord> created = news.stream().map(n -> inserted.get(n.id())).filter(Objects::nonNull).toList();
    List<TransitionWriter.Write> writes = engine.startAll(tx, created);
    refuseOversizedStarts(orders, created, writes, orderOf);
    for (int k = 0; k < created.size(); k++) {
      InstanceRecord r = created.get(k);
      out[orderOf.get(r.id())] = written(c, r, writes.get(k), withSteps, orders.get(orderOf.get(r.id())));
    }
    // Keys that were there before this transaction: the instance that has them, as it is now.
    Map<String, Map<String, List<String>>> existing = new HashMap<>();
    for (NewInstance n : news) {
      if (!inserted.containsKey(n.id())) {
        existing.computeIfAbsent(n.namespace(), k -> new HashMap<>())
            .computeIfAbsent(n.workflow(), k -> new ArrayList<>()).add(n.businessKey());
      }
    }
    for (Map.Entry<String, Map<String, List<String>>> ns : existing.entrySet()) {
      for (Map.Entry<String, List<String>> wf : ns.getValue().entrySet()) {
        Map<String, InstanceRecord> found = instances.findByBusinessKeys(c, ns.getKey(), wf.getKey(), wf.getValue());
        for (String key : wf.getValue()) {
          InstanceRecord first = found.get(key);
          if (first == null) {
            throw new IllegalStateException("business key " + key + " neither inserted nor found");
          }
          out[firstOf.get(new Key(ns.getKey(), wf.getKey(), key))] = new Started(false, first,
              withSteps ? steps.listFor(c, first.id()) : List.of(),
              withSteps ? audit.listFor(c, first.id()) : List.of());
        }
      }
    }
    // Later orders of a key this call saw first: that instance, not created by them.
    for (int i = 0; i < orders.size(); i++) {
      int first = firstOf.get(orders.get(i).key());
      if (first != i) {
        out[i] = new Started(false, out[first].current(), out[first].steps(), out[first].audit());
      }
    }
    return List.of(out);
  }

  /**
   * A new instance as its start wrote it: what reading it back in the same transaction would return (every
   * timestamp is the transaction's time), without the read. A start that did not move the instance, which the
   * state machine does not do today, is read back. Its audit is the start's entry, which the insert wrote as given.
   */
  private Started written(Connection c, InstanceRecord inserted, TransitionWriter.Write write, boolean withSteps,
      Order order) throws SQLException {
    Transition t = write.transition();
    Instant now = inserted.createdAt();
    List<AuditRow> started = withSteps ? List.of(new AuditRow(AuditRow.Action.START.wire(), order.actor().user(), now,
        order.actor().source(), order.detail())) : List.of();
    if (!t.moved()) {
      return new Started(true, instances.find(c, inserted.id()).orElseThrow(),
          withSteps ? steps.listFor(c, inserted.id()) : List.of(), started);
    }
    Instant deadline = null;
    List<StepState> rows = new ArrayList<>(t.rows().size());
    for (StepState s : t.rows()) {
      boolean running = s.isRunning();
      Instant due = running ? write.deadlineOf(s) : null;
      if (due != null) {
        deadline = deadline == null || due.isBefore(deadline) ? due : deadline;
      }
      rows.add(new StepState(s.id(), s.name(), s.kind(), s.parent(), s.attempt(), s.status(), s.action(),
          s.commandMessageId(), s.dispatches(), null, false, s.chosen(), s.items(), s.finishSeq(), s.resultMessageId(),
          s.late(), s.output(), s.errorCode(), s.errorReason(), now, running ? null : now, 0));
    }
    boolean stepStarted = t.currentStep() != null;
    InstanceRecord current = new InstanceRecord(inserted.id(), inserted.namespace(), inserted.workflow(),
        inserted.revision(), inserted.businessKey(), t.status(), t.phase(),
        stepStarted ? t.currentStep() : inserted.stepName(), stepStarted ? t.currentAttempt() : inserted.attempt(),
        stepStarted ? now : inserted.stepStartedAt(), deadline, inserted.inputJson(),
        write.lastErrorJson() != null ? write.lastErrorJson() : inserted.lastErrorJson(), t.cancelRequested(), now,
        now, t.finishes() ? now : null, inserted.traceparent(), inserted.createdBy(), inserted.deadline(), false);
    return new Started(true, current, withSteps ? rows : List.of(), started);
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
   * @param actor who asked: each instance created gets its audit entry (detail {@value #BATCH}), the batch one log line
   * @return one result per item, in the order given
   * @throws IllegalArgumentException when the spec cannot be run
   */
  public List<BatchStarted> startAll(String namespace, String workflow, WorkflowSpec spec, List<StartItem> items,
      Actor actor) throws SQLException {
    List<Order> orders = items.stream().map(item -> new Order(namespace, workflow, spec, item.businessKey(),
        item.inputJson(), engine.tracing().startTraceparent(namespace, workflow), actor, BATCH)).toList();
    List<BatchStarted> started = unitOfWork.run(tx -> startIn(tx, orders, false)).stream()
        .map(s -> new BatchStarted(s.current().id(), s.current().status(), s.created())).toList();
    long created = started.stream().filter(BatchStarted::created).count();
    // One line for the batch (its instances have an entry each): how many it asked for and how many it created.
    AuditLog.write(new AuditLog.Line(AuditRow.Action.START.wire(),
        created > 0 ? AuditLog.Outcome.CREATED : AuditLog.Outcome.EXISTING, actor, namespace, workflow, null,
        BATCH + " of " + items.size() + ": " + created + " created"));
    return started;
  }

  /** The audit detail of a start made by a batch. */
  public static final String BATCH = "batch";
  /** The audit detail of a cancel that compensates first. */
  public static final String COMPENSATE = "compensate";

  /**
   * Cancels a RUNNING or COMPENSATING instance; cancelling a cancelled one again changes nothing.
   *
   * @param compensate undo the completed and unknown-outcome steps first; the instance then ends CANCELLED
   * @param actor who asked: recorded when the cancel moved the instance
   */
  public Result cancel(UUID id, boolean compensate, Actor actor) throws SQLException {
    return change(id, new Stimulus.Cancel(compensate), new Audit(AuditRow.Action.CANCEL, actor,
        compensate ? COMPENSATE : null));
  }

  /** Sends the failed steps (or compensation) of a FAILED instance again as new attempts, recorded as the actor's. */
  public Result retry(UUID id, Actor actor) throws SQLException {
    return change(id, new Stimulus.Retry(), new Audit(AuditRow.Action.RETRY, actor, null));
  }

  /** The most signals an instance holds that no wait has consumed; more are refused until waits consume them. */
  public static final int MAX_PENDING_SIGNALS = 100;

  /**
   * Stores a signal for the instance, in the order received; a wait for it consumes it now or when it starts.
   *
   * @param idempotencyKey the request's Idempotency-Key, or null: the same key again stores nothing and changes
   *     nothing (a client's retry after an ambiguous answer is not consumed by a later wait of the same name)
   * @param actor who sent it: recorded once the signal is stored (not again for the same key)
   * @return NotFound, Conflict (the instance has finished, or holds {@value #MAX_PENDING_SIGNALS} signals already) or
   *     Done
   */
  public Result signal(UUID id, String signal, String bodyJson, String idempotencyKey, Actor actor)
      throws SQLException {
    return change(id, (c, instance) -> {
      if (!instance.status().isActive()) {
        return Optional.of(new Result.Conflict("instance is " + instance.status()
            + "; signals are taken only while it is RUNNING or COMPENSATING"));
      }
      if (steps.pendingSignals(c, id) >= MAX_PENDING_SIGNALS) {
        return Optional.of(new Result.Conflict("instance holds " + MAX_PENDING_SIGNALS + " signals that no wait has"
            + " consumed yet; send more once its waits have taken some"));
      }
      if (!steps.storeSignal(c, id, signal, bodyJson, idempotencyKey)) {
        // Stored before (the same Idempotency-Key): nothing changes, and the audit has it once.
        return Optional.of(new Result.Done(instance, steps.listFor(c, id), audit.listFor(c, id)));
      }
      return Optional.empty();
    }, new Stimulus.SignalStored(signal), new Audit(AuditRow.Action.SIGNAL, actor, signal));
  }

  /** Who asked for a change, and what its audit entry says. */
  private record Audit(AuditRow.Action action, Actor actor, String detail) {}

  private Result change(UUID id, Stimulus stimulus, Audit audit) throws SQLException {
    return change(id, (c, instance) -> Optional.empty(), stimulus, audit);
  }

  private Result change(UUID id, Precheck precheck, Stimulus stimulus, Audit asked) throws SQLException {
    Result result = unitOfWork.run(tx -> changeIn(tx, id, precheck, stimulus, asked));
    // Once committed: the line says what was asked and how it ended.
    InstanceRecord instance = result instanceof Result.Done done ? done.instance() : null;
    AuditLog.Outcome outcome = result instanceof Result.NotFound ? AuditLog.Outcome.NOT_FOUND
        : result instanceof Result.Conflict ? AuditLog.Outcome.REFUSED : AuditLog.Outcome.DONE;
    AuditLog.write(new AuditLog.Line(asked.action().wire(), outcome, asked.actor(), instance == null ? null : instance.namespace(), instance == null ? null : instance.workflow(),
        id.toString(), asked.detail()));
    return result;
  }

  /**
   * The actions the audit records when they happen: a signal whenever it is stored (a wait may take it later), a
   * cancel or a retry only when it moved the instance (a second cancel changes nothing and records nothing).
   */
  private static boolean recorded(AuditRow.Action action, Transition t) {
    return action == AuditRow.Action.SIGNAL || t.moved();
  }

  private Result changeIn(UnitOfWork.Transaction tx, UUID id, Precheck precheck, Stimulus stimulus, Audit asked)
      throws SQLException {
    Connection c = tx.connection();
    Optional<InstanceRecord> locked = instances.lock(c, id);
    if (locked.isEmpty()) {
      return new Result.NotFound();
    }
    Optional<Result> refused = precheck.check(c, locked.get());
    if (refused.isPresent()) {
      return refused.get();
    }
    Engine.Applied applied = engine.apply(tx, locked.get(), stimulus);
    Transition t = applied.transition();
    if (t.kind() == Transition.Kind.REFUSED) {
      return new Result.Conflict(t.reason());
    }
    if (recorded(asked.action(), t)) {
      audit.record(c, id, asked.action(), asked.actor(), asked.detail());
    }
    long withdrawn = applied.written().withdrawn();
    if (withdrawn > 0) {
      try (LogFields.Scope fields = LogFields.open(id.toString(), locked.get().workflow(), null,
          MessageTracing.traceIdOf(locked.get().traceparent()))) {
        LOG.info("Instance {}: {} command(s) not yet published were withdrawn", id, withdrawn);
      }
    }
    return new Result.Done(instances.find(c, id).orElseThrow(), steps.listFor(c, id), audit.listFor(c, id));
  }

  /**
   * Records dead-letter replays on the instances whose messages went back to their queues (those of this runtime
   * that still exist), in a transaction of its own: the replay itself happened on the broker.
   *
   * @param detail what was replayed, e.g. the queue
   * @return how many instances it was recorded on
   */
  public int recordReplays(Set<UUID> instanceIds, Actor actor, String detail) throws SQLException {
    return unitOfWork.run(tx -> audit.recordForExisting(tx.connection(), instanceIds, AuditRow.Action.REPLAY, actor,
        detail));
  }

  /** How many instances {@link #failRunning} reads at a time: each is then failed in a transaction of its own. */
  public static final int FAIL_PAGE = 200;

  /**
   * Fails every RUNNING or COMPENSATING instance of the Workflow at once (docs/design.md#runtime-semantics, deleting a
   * Workflow with {@code baton.dev/on-delete: fail-running}): as an instance whose definition no longer loads fails
   * ({@link Stimulus.Abandon}), its attempts in flight are cancelled, its unpublished commands withdrawn and it
   * ends FAILED with {@code errorCode} and {@code reason} as its last error. Each instance in a transaction of its own
   * on its locked row, read a page of {@link #FAIL_PAGE} at a time, so however many there are no transaction grows
   * with them and an instance that ended meanwhile is left as it is. An instance that cannot be failed (its
   * transaction failed) does not stop the others; the first such failure is thrown once all were tried.
   *
   * @return how many instances this call failed
   */
  public long failRunning(String namespace, String workflow, String errorCode, String reason) throws SQLException {
    long failed = 0;
    long withdrawn = 0;
    SQLException first = null;
    for (InstanceStatus status : List.of(InstanceStatus.RUNNING, InstanceStatus.COMPENSATING)) {
      while (true) {
        List<InstanceRecord> page = unitOfWork.run(tx ->
            instances.list(tx.connection(), namespace, workflow, status, null, FAIL_PAGE));
        int moved = 0;
        int refused = 0;
        for (InstanceRecord listed : page) {
          try {
            long out = unitOfWork.run(tx -> abandon(tx, listed.id(), errorCode, reason));
            if (out >= 0) {
              moved++;
              withdrawn += out;
            }
          } catch (SQLException e) {
            LOG.warn("Instance {} of Workflow {}/{} could not be failed ({}): {}", listed.id(), namespace, workflow,
                errorCode, e.toString());
            first = first == null ? e : first;
            refused++;
          }
        }
        failed += moved;
        // A short page was the last; a page of which none could be failed would only be read again.
        if (page.size() < FAIL_PAGE || refused == page.size()) {
          break;
        }
      }
    }
    if (failed > 0) {
      LOG.info("Workflow {}/{}: {} unfinished instance(s) failed with {}, {} unpublished command(s) withdrawn: {}",
          namespace, workflow, failed, errorCode, withdrawn, reason);
    }
    if (first != null) {
      throw first;
    }
    return failed;
  }

  /**
   * One instance failed by {@link #failRunning}, on its locked row, by the engine like any other stimulus.
   *
   * @return how many of its unpublished commands were withdrawn; -1 when it had ended meanwhile (left as it is)
   */
  private long abandon(UnitOfWork.Transaction tx, UUID id, String errorCode, String reason) throws SQLException {
    Optional<InstanceRecord> locked = instances.lock(tx.connection(), id);
    if (locked.isEmpty() || !locked.get().status().isActive()) {
      return -1;
    }
    return engine.apply(tx, locked.get(), new Stimulus.Abandon(errorCode, reason)).written().withdrawn();
  }

  /**
   * A start whose first commands would not fit (over {@code BATON_MAX_COMMAND_BYTES}, or what the broker's
   * {@code max_message_size} leaves) is refused rather than created to fail at once (docs/design.md#runtime-semantics,
   * "refused commands fail fast"): the caller's transaction rolls back, a batch with it. A start's state machine
   * fails a step with {@code PayloadTooLarge} only for a command of its own: nothing has run yet.
   */
  private static void refuseOversizedStarts(List<Order> orders, List<InstanceRecord> created,
      List<TransitionWriter.Write> writes, Map<UUID, Integer> orderOf) {
    for (int k = 0; k < created.size(); k++) {
      for (StepState s : writes.get(k).transition().rows()) {
        if (StateMachine.PAYLOAD_TOO_LARGE.equals(s.errorCode())) {
          int item = orderOf.get(created.get(k).id());
          throw new FirstCommandTooLarge(item, orders.get(item).businessKey(), s.name(), s.errorReason());
        }
      }
    }
  }

  /**
   * A start refused because its first command would be too large: nothing was created (HTTP 413).
   *
   * @param item the start's position in its batch (0 for a single start)
   */
  public static final class FirstCommandTooLarge extends RuntimeException {

    private final int item;
    private final String businessKey;

    FirstCommandTooLarge(int item, String businessKey, String step, String reason) {
      super("the command of its first step '" + step + "' would not fit: " + reason, null, false, false);
      this.item = item;
      this.businessKey = businessKey;
    }

    public int item() {
      return item;
    }

    public String businessKey() {
      return businessKey;
    }
  }

  /** How many refused commands {@link #applyRefusals} reads at a time; each is applied in a transaction of its own. */
  public static final int REFUSAL_PAGE = 100;

  /**
   * Fails the attempts whose command the broker refused (docs/design.md#runtime-semantics, "refused commands fail
   * fast"), as the relay marked them in the outbox: each in a transaction of its own, on the instance's locked row
   * (locked before the outbox row, as a cancel does), the row deleted and {@link Stimulus.Refused} applied. A refusal
   * that no attempt in flight waits for (it timed out meanwhile, the instance ended) only deletes the row. Run when
   * the relay hands refusals over, and periodically: a crash between the relay's commit and the hand-over leaves the
   * rows marked. A refusal that cannot be applied does not stop the others; the first failure is thrown at the end.
   *
   * @return how many attempts this call failed
   */
  public int applyRefusals() throws SQLException {
    OutboxStore outbox = engine.outbox();
    int failed = 0;
    SQLException first = null;
    while (true) {
      List<RefusedCommand> page = unitOfWork.run(tx -> outbox.refused(tx.connection(), REFUSAL_PAGE));
      int notApplied = 0;
      for (RefusedCommand r : page) {
        try {
          if (unitOfWork.run(tx -> applyRefusal(tx, r))) {
            failed++;
          }
        } catch (SQLException e) {
          LOG.warn("The refusal of command {} (instance {}) could not be applied: {}", r.messageId(), r.instanceId(),
              e.toString());
          first = first == null ? e : first;
          notApplied++;
        }
      }
      // A short page was the last; a page with a refusal that could not be applied would only be read again.
      if (page.size() < REFUSAL_PAGE || notApplied > 0) {
        break;
      }
    }
    if (first != null) {
      throw first;
    }
    return failed;
  }

  /** @return whether an attempt failed (the row was there and an attempt in flight had sent the command) */
  private boolean applyRefusal(UnitOfWork.Transaction tx, RefusedCommand r) throws SQLException {
    Connection c = tx.connection();
    Optional<InstanceRecord> locked = r.instanceId() == null ? Optional.empty() : instances.lock(c, r.instanceId());
    if (!engine.outbox().takeRefused(c, r.outboxId()) || locked.isEmpty()) {
      return false;
    }
    InstanceRecord instance = locked.get();
    Transition t = engine.apply(tx, instance, new Stimulus.Refused(r.messageId(), r.errorCode(), r.reason()))
        .transition();
    try (LogFields.Scope fields = LogFields.open(instance.id().toString(), instance.workflow(), null,
        MessageTracing.traceIdOf(instance.traceparent()))) {
      if (t.moved()) {
        LOG.warn("Instance {}: the broker refused command {}, its attempt failed ({}): {}", instance.id(),
            r.messageId(), r.errorCode(), r.reason());
      } else {
        LOG.info("Instance {}: the broker refused command {}, which no attempt in flight waits for ({})",
            instance.id(), r.messageId(), t.reason());
      }
    }
    return t.moved();
  }

  @FunctionalInterface
  private interface Precheck {
    Optional<Result> check(Connection c, InstanceRecord instance) throws SQLException;
  }

  /**
   * A start: whether it created the instance (201) or found it by business key (200), and the instance as it is at
   * the end of the start's transaction with its steps and audit (what the API answers; a batch's have neither).
   */
  public record Started(boolean created, InstanceRecord current, List<StepState> steps, List<AuditRow> audit) {}

  /** One start of a batch: a business key and the input (JSON). */
  public record StartItem(String businessKey, String inputJson) {}

  /** What a batch start did for one item: the instance, its status, and whether this start created it. */
  public record BatchStarted(UUID id, InstanceStatus status, boolean created) {}

  /** The outcome of cancel, retry or a signal. */
  public sealed interface Result {
    record NotFound() implements Result {}

    record Conflict(String reason) implements Result {}

    /** The instance as the change left it, with its steps and its audit. */
    record Done(InstanceRecord instance, List<StepState> steps, List<AuditRow> audit) implements Result {}
  }
}
