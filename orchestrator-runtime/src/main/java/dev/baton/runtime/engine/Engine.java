package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.contract.Headers;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.messaging.tracing.MessagingSpans;
import dev.baton.runtime.core.Ending;
import dev.baton.runtime.core.InboundEvent;
import dev.baton.runtime.core.InstanceState.StoredSignal;
import dev.baton.runtime.core.InstanceState;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.Receipt;
import dev.baton.runtime.core.StateMachine;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.Stimulus;
import dev.baton.runtime.core.Transition;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.StepStore;
import dev.baton.runtime.store.TransitionWriter;
import dev.baton.runtime.tracing.InstanceTracing;
import dev.baton.workflow.WorkflowDefinition;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies stimuli inside the caller's {@link UnitOfWork} (docs/design.md#runtime-semantics): on instance rows the
 * caller has locked (or that it locks here, for events), it reads the steps, asks the {@link StateMachine}, composes
 * the commands of what starts, and hands everything to the {@link TransitionWriter}. The unit of work commits and
 * hands the commands to the relay; only then does the caller ACK or answer.
 *
 * <p>Events are set-based, so a batch costs a few round trips whatever its size: one locks every instance of the
 * batch (in id order) and reads their steps, one statement writes every transition. Two events of the same
 * instance in one batch go in successive rounds, the second deciding on the state the first left.
 */
public final class Engine {

  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);

  private final InstanceStore instances;
  private final StepStore steps;
  private final DefinitionCatalog definitions;
  private final StateMachine machine;
  private final CommandComposer composer;
  private final OutcomeComposer outcomes = new OutcomeComposer();
  private final TransitionWriter writer;
  private final InstanceTracing tracing;
  private final OutboxStore outbox;
  private final Clock clock;
  /** Starts and reads the children of child workflow steps; null until wired (then such steps wait for ever). */
  private volatile ChildWorkflows children;

  /**
   * @param outbox where a cancel and a timeout withdraw the commands still unpublished
   * @param clock when decisions are made: the deadlines of the attempts they start count from it
   */
  public Engine(InstanceStore instances, StepStore steps, DefinitionCatalog definitions, StateMachine machine,
      CommandComposer composer, TransitionWriter writer, InstanceTracing tracing, OutboxStore outbox, Clock clock) {
    this.outbox = outbox;
    this.clock = clock;
    this.tracing = tracing;
    this.instances = instances;
    this.steps = steps;
    this.definitions = definitions;
    this.machine = machine;
    this.composer = composer;
    this.writer = writer;
  }

  /**
   * What one stimulus did to one instance.
   *
   * @param written the commands it queued (handed to the relay once committed) and those it withdrew
   */
  public record Applied(Transition transition, TransitionWriter.Written written) {

    public boolean dispatched() {
      return written.dispatched();
    }
  }

  /** One stimulus on an instance whose row the caller has locked (start, cancel, retry, signal, timers). */
  public Applied apply(UnitOfWork.Transaction tx, InstanceRecord instance, Stimulus stimulus) throws SQLException {
    Connection c = tx.connection();
    List<StepState> rows = stimulus instanceof Stimulus.Start ? List.of() // a new instance has none: no read
        : steps.load(c, List.of(instance.id())).getOrDefault(instance.id(), List.of());
    Planned p = plan(tx, instance, rows, withdrawing(c, instance, rows, stimulus), null);
    TransitionWriter.Written written = writer.write(c, List.of(p.write()));
    tx.wrote(written);
    return new Applied(p.transition(), written);
  }

  /**
   * Starts new instances (rows the caller's transaction inserted, not yet dispatched): each one's start decision, all
   * written in one statement.
   *
   * @return each instance's write, in the order given
   */
  public List<TransitionWriter.Write> startAll(UnitOfWork.Transaction tx, List<InstanceRecord> inserted)
      throws SQLException {
    Connection c = tx.connection();
    List<TransitionWriter.Write> writes = new ArrayList<>(inserted.size());
    for (InstanceRecord instance : inserted) {
      writes.add(plan(tx, instance, List.of(), new Stimulus.Start(), null).write()); // a new instance has no steps
    }
    tx.wrote(writer.write(c, writes));
    return writes;
  }

  /** @return a receipt per event, in the order given */
  public List<Receipt> applyEvents(UnitOfWork.Transaction tx, List<InboundEvent> events) throws SQLException {
    Receipt[] receipts = new Receipt[events.size()];
    List<Integer> pending = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      pending.add(i);
    }
    while (!pending.isEmpty()) {
      List<Integer> round = new ArrayList<>();
      List<Integer> later = new ArrayList<>();
      Set<UUID> inRound = new LinkedHashSet<>();
      for (int i : pending) {
        (inRound.add(events.get(i).instanceId()) ? round : later).add(i);
      }
      applyRound(tx, events, round, inRound, receipts);
      pending = later;
    }
    return List.of(receipts);
  }

  private void applyRound(UnitOfWork.Transaction tx, List<InboundEvent> events, List<Integer> round, Set<UUID> ids,
      Receipt[] receipts) throws SQLException {
    Connection c = tx.connection();
    InstanceStore.LockedBatch batch = instances.lockAllWithSteps(c, ids);
    Map<UUID, InstanceRecord> locked = batch.instances();
    List<Integer> candidates = new ArrayList<>();
    List<UUID> found = new ArrayList<>();
    for (int i : round) {
      InboundEvent e = events.get(i);
      InstanceRecord instance = locked.get(e.instanceId());
      if (instance == null) {
        receipts[i] = Receipt.ignored(Receipt.Kind.UNKNOWN_INSTANCE, "unknown instance " + e.instanceId());
      } else if (!instance.workflow().equals(e.workflow())
          || (e.namespace() != null && !instance.namespace().equals(e.namespace()))) {
        receipts[i] = Receipt.ignored(Receipt.Kind.REJECTED, "instance " + instance.id() + " belongs to workflow "
            + instance.namespace() + "/" + instance.workflow() + ", the event names "
            + (e.namespace() == null ? "" : e.namespace() + "/") + e.workflow());
      } else {
        candidates.add(i);
        found.add(instance.id());
      }
    }
    if (candidates.isEmpty()) {
      return;
    }
    Map<UUID, List<StepState>> loaded = batch.steps();
    Map<UUID, List<StoredSignal>> signals = steps.storedSignals(c, waitingOnes(c, locked, found));
    List<TransitionWriter.Write> writes = new ArrayList<>(candidates.size());
    for (int i : candidates) {
      InboundEvent e = events.get(i);
      InstanceRecord instance = locked.get(e.instanceId());
      List<StepState> rows = loaded.getOrDefault(instance.id(), List.of());
      Planned p = plan(tx, instance, rows, new Stimulus.Result(e), signals);
      writes.add(p.write());
      Transition t = p.transition();
      receipts[i] = switch (t.kind()) {
        case MOVED -> Receipt.applied(instance.namespace(), t.status(), latencyOf(rows, e));
        case DUPLICATE -> Receipt.ignored(instance.namespace(), Receipt.Kind.DUPLICATE, t.reason());
        default -> Receipt.ignored(instance.namespace(), Receipt.Kind.STALE, t.reason());
      };
    }
    tx.wrote(writer.write(c, writes));
  }

  private record Planned(Transition transition, TransitionWriter.Write write) {}

  /**
   * Now, to the millisecond: deadlines travel on commands as epoch milliseconds, and the step rows keep the same
   * instant, so the answer a start gives and what a read shows agree to the digit.
   */
  private Instant decisionTime() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }

  /**
   * Takes back, before deciding, the commands that must never reach a worker once the decision is made
   * (docs/design.md#runtime-semantics, "No effect after its compensation"): a cancel that stops the instance
   * ({@link Stimulus.Cancel#stops}; not one asking an instance already undoing to undo) withdraws every unpublished
   * command of the instance, and tells the state machine which they were (their tasks never ran; the others may
   * have, and are awaited before anything is undone); a timeout withdraws the unpublished command of each attempt
   * that timed out, before it is sent again or failed.
   */
  private Stimulus withdrawing(Connection c, InstanceRecord instance, List<StepState> rows, Stimulus stimulus)
      throws SQLException {
    if (stimulus instanceof Stimulus.Cancel cancel && cancel.stops(instance.status(), instance.phase())) {
      return new Stimulus.Cancel(cancel.compensate(), outbox.withdrawAll(c, instance.id()));
    }
    if (stimulus instanceof Stimulus.TimersDue) {
      List<UUID> due = rows.stream().filter(s -> s.isRunning() && s.due() && s.commandMessageId() != null)
          .map(StepState::commandMessageId).toList();
      outbox.withdraw(c, instance.id(), due);
    }
    return stimulus;
  }

  /** Binds the child workflows, which need this engine in turn (set once, when the runtime is wired). */
  public void children(ChildWorkflows children) {
    this.children = children;
  }

  /** The outbox its decisions write to and withdraw from. */
  public OutboxStore outbox() {
    return outbox;
  }

  /** The instance's trace (docs/design.md#observability). */
  public InstanceTracing tracing() {
    return tracing;
  }

  /**
   * Decides inside the stimulus's span (the commands it dispatches are its children) and the instance's log fields.
   */
  /** @param signals the signals stored for the batch's instances, or null to read them if the definition waits */
  private Planned plan(UnitOfWork.Transaction tx, InstanceRecord instance, List<StepState> rows, Stimulus stimulus,
      Map<UUID, List<StoredSignal>> signals) throws SQLException {
    Context trace = traceOf(instance, stimulus);
    Span span = Span.fromContext(trace);
    try (Scope current = trace.makeCurrent();
        LogFields.Scope fields = LogFields.open(instance.id().toString(), instance.workflow(), stepOf(stimulus, rows),
            span.getSpanContext().isValid() ? span.getSpanContext().getTraceId() : null)) {
      Planned p = decide(tx, instance, rows, stimulus, signals);
      if (p.transition().finishes()) {
        span.addEvent("finished " + p.transition().status());
      }
      return p;
    } finally {
      span.end();
    }
  }

  /**
   * The context to decide in: the stimulus's span (ended after), with the baggage the event or the start request
   * carries.
   */
  private Context traceOf(InstanceRecord instance, Stimulus stimulus) {
    if (stimulus instanceof Stimulus.Result r) {
      InboundEvent e = r.event();
      String id = instance.id().toString();
      return tracing.applying(e.context(), new MessagingSpans.Message(e.exchange(), null, e.messageId(), id, -1),
          instance.traceparent(), id, e.step(), e.action(), e.result().key());
    }
    return Context.current().with(spanOf(instance, stimulus));
  }

  private Span spanOf(InstanceRecord instance, Stimulus stimulus) {
    String trace = instance.traceparent();
    String id = instance.id().toString();
    if (stimulus instanceof Stimulus.Start) {
      // The start's own span (the request's, or the one the instance's trace began with); not ours to end.
      return Span.current().getSpanContext().isValid() ? Span.wrap(Span.current().getSpanContext())
          : Span.wrap(MessageTracing.fromTraceparent(trace).map(ctx -> Span.fromContext(ctx).getSpanContext())
              .orElse(SpanContext.getInvalid()));
    }
    if (stimulus instanceof Stimulus.SignalStored s) {
      return tracing.instanceWork("signal " + s.signal(), trace, id);
    }
    if (stimulus instanceof Stimulus.Cancel cancel) {
      return tracing.instanceWork(cancel.compensate() ? "cancel and compensate" : "cancel", trace, id);
    }
    if (stimulus instanceof Stimulus.Abandon abandon) {
      return tracing.instanceWork("fail: " + abandon.errorCode(), trace, id);
    }
    if (stimulus instanceof Stimulus.Refused refused) {
      return tracing.instanceWork("command refused: " + refused.errorCode(), trace, id);
    }
    if (stimulus instanceof Stimulus.InstanceTimedOut) {
      return tracing.instanceWork("instance deadline", trace, id);
    }
    if (stimulus instanceof Stimulus.ChildrenChanged || stimulus instanceof Stimulus.ChildRefused) {
      return tracing.instanceWork("child workflows", trace, id);
    }
    if (stimulus instanceof Stimulus.Compensate) {
      return tracing.instanceWork("compensate for its parent", trace, id);
    }
    return tracing.instanceWork(stimulus instanceof Stimulus.Retry ? "retry" : "timers due", trace, id);
  }

  /** The step a stimulus is about: an event's, or the steps whose timers are due (comma-separated). */
  private static String stepOf(Stimulus stimulus, List<StepState> rows) {
    if (stimulus instanceof Stimulus.Result r) {
      return r.event().step();
    }
    return stimulus instanceof Stimulus.TimersDue ? dueSteps(rows) : null;
  }

  /** The names of the steps in flight whose deadline has passed, comma-separated; null when none. */
  private static String dueSteps(List<StepState> rows) {
    String names = rows.stream().filter(StepState::due).map(StepState::name).distinct()
        .collect(java.util.stream.Collectors.joining(","));
    return names.isEmpty() ? null : names;
  }

  private Planned decide(UnitOfWork.Transaction tx, InstanceRecord instance, List<StepState> rows,
      Stimulus stimulus, Map<UUID, List<StoredSignal>> signals) throws SQLException {
    Connection c = tx.connection();
    WorkflowDefinition definition;
    try {
      definition = definitions.pinned(c, instance.namespace(), instance.workflow(), instance.revision());
    } catch (RuntimeException e) {
      // One instance that cannot go on must not hold up others (docs/design.md#runtime-semantics): it fails with
      // the reason, and whatever it still had in flight is cancelled and withdrawn.
      InstanceState state = state(instance, rows, List.of());
      if (!state.status().isActive()) {
        Transition t = Transition.nothing(Transition.Kind.STALE, "instance is " + state.status(), state);
        return new Planned(t, new TransitionWriter.Write(instance.id(), t, List.of(), null, decisionTime()));
      }
      String reason = "the definition of " + instance.namespace() + "/" + instance.workflow() + " revision "
          + instance.revision() + " cannot be loaded: " + e.getMessage();
      LOG.error("Instance {} fails: {}", instance.id(), reason);
      Transition t = StateMachine.abandon(state, StateMachine.DEFINITION_UNAVAILABLE, reason);
      Instant decidedAt = decisionTime();
      String lastError = lastErrorJson(t);
      List<OutboxMessage> outcome = new ArrayList<>(1);
      addOutcome(outcome, instance, rows, t, lastError, decidedAt);
      return new Planned(t, new TransitionWriter.Write(instance.id(), t, outcome, lastError, decidedAt));
    }
    if (stimulus instanceof Stimulus.Retry && instance.status() == InstanceStatus.FAILED
        && definition.timeout() != null) {
      // A retry gives the instance its time again: its deadline counts from the retry (docs/design.md, spec.timeout).
      instance = instance.withDeadline(decisionTime().plus(definition.timeout()));
      instances.renewDeadline(c, instance.id(), instance.deadline());
    }
    // Only Workflows with waits store signals: the others skip the read.
    List<StoredSignal> stored = !definition.waitsForSignals() ? List.of()
        : signals != null ? signals.getOrDefault(instance.id(), List.of())
        : steps.storedSignals(c, List.of(instance.id())).getOrDefault(instance.id(), List.of());
    boolean parent = children != null && definition.startsChildren();
    Map<String, InstanceState.ChildState> childStates = parent ? children.statesOf(c, instance.id(), rows) : Map.of();
    Transition t = machine.decide(definition, state(instance, rows, stored, childStates), stimulus);
    if (parent && !t.childStarts().isEmpty()) {
      children.start(tx, instance, t.childStarts());
    }
    if (parent && t.writes() && t.rows().stream().anyMatch(r -> r.kind().equals("workflow"))) {
      tx.wake(instance.id()); // a child step started, ended or is being undone: its child follows after the commit
    }
    Instant decidedAt = decisionTime();
    List<OutboxMessage> commands = new ArrayList<>(t.dispatches().size());
    CommandComposer.Subject subject = new CommandComposer.Subject(instance.id(), instance.namespace(),
        instance.businessKey(), definition, instance.traceparent(), instance.deadline());
    for (Transition.Dispatch d : t.dispatches()) {
      commands.add(composer.compose(subject, d, decidedAt));
    }
    String lastError = lastErrorJson(t);
    addOutcome(commands, instance, rows, t, lastError, decidedAt);
    return new Planned(t, new TransitionWriter.Write(instance.id(), t, commands, lastError, decidedAt,
        instance.deadline()));
  }

  /**
   * The outcome event of a transition that ends the instance (docs/message-contract.md#instance-outcomes), into the
   * outbox with the transition: published only once the transaction that ended the instance has committed, never if
   * it rolls back, and again with the same message id after a crash.
   *
   * @param lastErrorJson the transition's last error, or null when it keeps the instance's
   */
  private void addOutcome(List<OutboxMessage> messages, InstanceRecord instance, List<StepState> rows, Transition t,
      String lastErrorJson, Instant decidedAt) {
    Ending.of(rows, t).flatMap(ending -> outcomes.compose(instance, ending,
        lastErrorJson != null ? lastErrorJson : instance.lastErrorJson(), decidedAt)).ifPresent(messages::add);
  }

  /**
   * The instances of the batch whose definition has waits: only their stored signals are read, in one query for
   * the batch (none at all for Workflows without waits).
   */
  private List<UUID> waitingOnes(Connection c, Map<UUID, InstanceRecord> locked, List<UUID> ids) throws SQLException {
    List<UUID> waiting = new ArrayList<>();
    for (UUID id : ids) {
      InstanceRecord r = locked.get(id);
      try {
        if (definitions.pinned(c, r.namespace(), r.workflow(), r.revision()).waitsForSignals()) {
          waiting.add(id);
        }
      } catch (RuntimeException e) {
        // a definition that no longer loads: the instance fails when it is decided
      }
    }
    return waiting;
  }

  private static InstanceState state(InstanceRecord r, List<StepState> rows, List<StoredSignal> signals) {
    return state(r, rows, signals, Map.of());
  }

  private static InstanceState state(InstanceRecord r, List<StepState> rows, List<StoredSignal> signals,
      Map<String, InstanceState.ChildState> children) {
    return new InstanceState(r.id(), r.status(), r.phase(), r.cancelRequested(), Json.readObject(r.inputJson()),
        rows, signals, r.pastDeadline(), children);
  }

  /** Dispatch-to-result time of the attempt the event answered, by the database's clock. */
  private static long latencyOf(List<StepState> rows, InboundEvent e) {
    for (StepState s : rows) {
      if (s.isRunning() && s.stepName().equals(e.step()) && s.attempt() == e.attempt()) {
        return s.elapsedMillis();
      }
    }
    return 0;
  }

  /** "Which step, which attempt, and why": what GET shows as lastError. */
  private static String lastErrorJson(Transition t) {
    Transition.LastError e = t.lastError();
    if (e == null) {
      return null;
    }
    ObjectNode o = Json.object();
    o.put("step", e.step());
    o.put("kind", e.kind());
    o.put("action", e.action());
    o.put("attempt", e.attempt());
    o.put("status", e.status().name());
    o.put("errorCode", e.errorCode());
    o.put("reason", e.reason());
    o.put("at", Instant.now().toString());
    return Json.write(o);
  }
}
