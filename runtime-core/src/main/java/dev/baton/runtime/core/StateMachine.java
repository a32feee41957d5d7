package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.contract.BatonDuration;
import dev.baton.runtime.core.InstanceState.StoredSignal;
import dev.baton.runtime.core.Stimulus.Cancel;
import dev.baton.runtime.core.Stimulus.Result;
import dev.baton.runtime.core.Stimulus.Retry;
import dev.baton.runtime.core.Stimulus.SignalStored;
import dev.baton.runtime.core.Stimulus.Start;
import dev.baton.runtime.core.Stimulus.TimersDue;
import dev.baton.runtime.core.Transition.Dispatch;
import dev.baton.runtime.core.Transition.Kind;
import dev.baton.runtime.core.Transition.LastError;
import dev.baton.runtime.core.Transition.SignalUse;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.baton.api.v1alpha1.Bounds;
import dev.baton.workflow.Expression;
import dev.baton.workflow.ExpressionException;
import dev.baton.workflow.Iteration;
import dev.baton.workflow.IterationNames;
import dev.baton.workflow.Step;
import dev.baton.workflow.WorkflowDefinition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The state machine of an instance (docs/design.md#runtime-semantics), pure: a definition, the locked
 * {@link InstanceState} and a {@link Stimulus} in, a {@link Transition} out. No I/O and no clock (deadlines are
 * durations; the database says which are due), so every rule is tested in tables and the step loop, the timer sweep
 * and the API move instances by the same rules.
 *
 * <p>The state is the rows. After applying the stimulus to the attempt it concerns, the machine walks the definition
 * from the top and starts what may start now: in a sequence, a step without a row starts and a step in flight holds
 * the rest; a parallel step starts all its branches and ends when they all have; a choice evaluates its cases once,
 * records the one it took and runs its steps; a wait consumes the oldest stored signal of its name, a delay ends at
 * its deadline. A failure anywhere stops every start ("halted"): waits and delays in flight are cancelled (they have
 * no effect to await), tasks in flight are awaited (or time out), and then {@code onFailure} applies. Compensation
 * undoes, one at a time and newest first by the order in which they ended (across branches), the tasks that declare
 * {@code compensate} and succeeded or may have taken effect (timed out, error, cancelled in flight).
 */
public final class StateMachine {

  /** The error code and reason of a step that got no answer (or no signal) in time. */
  public static final String TIMEOUT = "Timeout";
  /**
   * The error code of the steps in flight when the whole instance ran past its deadline ({@code spec.timeout}); their
   * reason, and so the instance's last error, begins with {@link #TIMEOUT}.
   */
  public static final String INSTANCE_TIMEOUT = "InstanceTimeout";
  /** The error code of a step whose expression (a choice's case, a task's input mapping) failed. */
  public static final String EXPRESSION_ERROR = "ExpressionError";
  /** A choice that took no case but its {@code otherwise}. */
  public static final String OTHERWISE = "otherwise";

  /** The error code of a child workflow step whose child instance ended otherwise than SUCCEEDED. */
  public static final String CHILD_FAILED = "ChildFailed";
  /** The error code of a child workflow step whose child instance could not be started. */
  public static final String CHILD_UNAVAILABLE = "ChildUnavailable";

  /** The error code of a map whose {@code items} yielded more than {@link Bounds#MAP_ITEMS} items. */
  public static final String TOO_MANY_ITEMS = "TooManyItems";

  /** The error code of a task whose command would be larger than the limit: never sent, the step fails. */
  public static final String PAYLOAD_TOO_LARGE = "PayloadTooLarge";
  /**
   * The error code of a task whose command the broker refused for another reason than its size (no permission,
   * unroutable for good): it never reached a worker, the step fails.
   */
  public static final String COMMAND_REFUSED = "CommandRefused";
  /** The error code of an attempt the worker did not start because it came after its deadline. */
  public static final String EXPIRED = "Expired";
  /**
   * The error code of an answer whose output or reason PostgreSQL cannot store (a NUL character): the step ends in
   * {@code error}, an unknown outcome, instead of the event being parked and the step waiting for ever.
   */
  public static final String UNSTORABLE_OUTPUT = "UnstorableOutput";
  /** The error code of a task cancelled while its command was still unpublished: withdrawn, it never ran. */
  public static final String NOT_SENT = "NotSent";
  /** The error code of an instance that failed because its definition no longer loads ({@link #abandon}). */
  public static final String DEFINITION_UNAVAILABLE = "DefinitionUnavailable";
  /** The default limit of a command's input (BATON_MAX_COMMAND_BYTES): well under any broker's max_message_size. */
  public static final long DEFAULT_MAX_COMMAND_BYTES = 4L * 1024 * 1024;

  private final Supplier<UUID> messageIds;
  private final long maxCommandBytes;
  private final LongSupplier brokerCommandBytes;

  /** @param messageIds the message id of each command sent (random in the runtime, counted in tests) */
  public StateMachine(Supplier<UUID> messageIds) {
    this(messageIds, DEFAULT_MAX_COMMAND_BYTES);
  }

  /**
   * @param maxCommandBytes the largest input (with the earlier outputs it carries) a command may have; a larger one
   *     is not sent and its step fails with {@link #PAYLOAD_TOO_LARGE}, so it never reaches the broker, which would
   *     close the channel on it (the input grows with every step's output)
   */
  public StateMachine(Supplier<UUID> messageIds, long maxCommandBytes) {
    this(messageIds, maxCommandBytes, () -> Long.MAX_VALUE);
  }

  /**
   * @param brokerCommandBytes what the broker's {@code max_message_size} leaves for a command's input, once the
   *     runtime has learned it from a refusal ({@link Long#MAX_VALUE} until then): the smaller of the two limits
   *     applies, so a command the broker would refuse is not written at all
   */
  public StateMachine(Supplier<UUID> messageIds, long maxCommandBytes, LongSupplier brokerCommandBytes) {
    this.messageIds = messageIds;
    this.maxCommandBytes = maxCommandBytes;
    this.brokerCommandBytes = brokerCommandBytes;
  }

  public Transition decide(WorkflowDefinition definition, InstanceState state, Stimulus stimulus) {
    if (stimulus instanceof Result r) {
      return onResult(definition, state, r.event());
    }
    if (stimulus instanceof Cancel c) {
      return onCancel(definition, state, c);
    }
    if (stimulus instanceof Retry) {
      if (state.status() != InstanceStatus.FAILED) {
        return Transition.nothing(Kind.REFUSED,
            "instance is " + state.status() + "; only FAILED instances can be retried", state);
      }
      Draft d = new Draft(definition, state);
      d.pastDeadline = false; // a retry's deadline counts again from the retry (the engine writes it)
      d.retry();
      return d.transition();
    }
    if (stimulus instanceof Stimulus.Compensate) {
      if (state.status() != InstanceStatus.SUCCEEDED) {
        return Transition.nothing(Kind.REFUSED, "instance is " + state.status()
            + "; only a SUCCEEDED instance is compensated after it ended", state);
      }
      Draft d = new Draft(definition, state);
      d.phase = Phase.COMPENSATION;
      d.compensate();
      return d.transition();
    }
    if (!state.status().isActive()) {
      return Transition.nothing(Kind.STALE, "instance is " + state.status(), state);
    }
    if (stimulus instanceof Stimulus.ChildRefused r) {
      StepState row = latestByName(state.steps()).get(r.row());
      if (row == null || !row.isRunning() || !row.kind().equals("workflow")) {
        return Transition.nothing(Kind.STALE, "no child workflow step '" + r.row() + "' is in flight", state);
      }
      Draft d = new Draft(definition, state);
      d.end(row, StepStatus.FAILED, null, CHILD_UNAVAILABLE, r.reason(), null, true);
      d.walk();
      return d.transition();
    }
    if (stimulus instanceof Stimulus.Abandon a) {
      return abandon(state, a.errorCode(), a.reason());
    }
    if (stimulus instanceof Stimulus.Refused r) {
      return onRefused(definition, state, r);
    }
    Draft d = new Draft(definition, state);
    if (stimulus instanceof Start) {
      d.walk();
    } else if (stimulus instanceof Stimulus.InstanceTimedOut) {
      if (state.phase() != Phase.FORWARD) {
        return Transition.nothing(Kind.STALE, "instance is " + state.status() + ": past its deadline, its"
            + " compensation still finishes", state);
      }
      d.pastDeadline = true;
      d.walk();
    } else if (stimulus instanceof TimersDue) {
      // Past the instance's deadline, the steps due time out with the instance (none is sent again).
      if (!d.timesOutWhole() && !d.timersDue()) {
        return Transition.nothing(Kind.STALE, "no step in flight is due", state);
      }
      d.walk();
    } else if (stimulus instanceof SignalStored || stimulus instanceof Stimulus.ChildrenChanged) {
      d.walk();
    } else {
      throw new IllegalArgumentException("unknown stimulus " + stimulus);
    }
    return d.transition();
  }

  /**
   * The instance cannot go on (its definition no longer loads): it fails with the reason, its steps in flight are
   * cancelled and its unpublished commands withdrawn. Needs no definition.
   */
  public static Transition abandon(InstanceState state, String errorCode, String reason) {
    List<StepState> rows = new ArrayList<>();
    int seq = nextSeq(state.steps());
    for (StepState row : latestByName(state.steps()).values()) {
      if (row.isRunning()) {
        rows.add(row.ended(StepStatus.CANCELLED, null, errorCode, reason, seq++, null));
      }
    }
    StepState last = state.steps().isEmpty() ? null : state.steps().get(state.steps().size() - 1);
    LastError error = new LastError(last == null ? null : last.name(), last == null ? null : last.kind(),
        last == null ? null : last.action(), last == null ? 0 : last.attempt(), StepStatus.FAILED, errorCode, reason);
    return new Transition(Kind.MOVED, reason, InstanceStatus.FAILED, state.phase(), state.cancelRequested(), rows,
        List.of(), List.of(), error, true, null, 0);
  }

  private Transition onResult(WorkflowDefinition definition, InstanceState state, InboundEvent e) {
    Step.Task task = definition.step(IterationNames.base(e.step())).filter(Step.Task.class::isInstance)
        .map(Step.Task.class::cast).orElse(null);
    if (task == null) {
      return Transition.nothing(Kind.STALE, "step '" + e.step() + "' is not a task of this workflow", state);
    }
    List<String> series = new ArrayList<>(2);
    if (e.action().equals(task.action())) {
      series.add(e.step()); // the row's name: the task's, or the task's in one of a map's iterations
    }
    if (e.action().equals(task.compensate())) {
      series.add(StepState.compensationOf(e.step()));
    }
    if (series.isEmpty()) {
      return Transition.nothing(Kind.STALE, "action '" + e.action() + "' is neither the action nor the"
          + " compensation of step '" + task.name() + "'", state);
    }
    StepState row = null;
    for (StepState s : state.steps()) {
      if (series.contains(s.name()) && s.attempt() == e.attempt() && (row == null || s.isRunning())) {
        row = s;
      }
    }
    if (row == null) {
      return Transition.nothing(Kind.STALE,
          "attempt " + e.attempt() + " of '" + e.step() + "' (" + e.action() + ") was never sent", state);
    }
    if (e.messageId().equals(row.resultMessageId())) {
      return Transition.nothing(Kind.DUPLICATE, "event " + e.messageId() + " already ended that attempt", state);
    }
    if (!row.isRunning() || !state.status().isActive()) {
      if (row.status().acceptsLateResult() && row.late() == null) {
        ObjectNode late = Json.object();
        late.put("result", e.result().name().toLowerCase(Locale.ROOT));
        late.set("output", e.output());
        late.put("errorCode", e.errorCode());
        late.put("reason", e.reason());
        late.put("messageId", e.messageId());
        return new Transition(Kind.LATE, "attempt " + row.attempt() + " of '" + row.name() + "' is "
            + row.status() + ": the result is recorded on it and not applied", state.status(), state.phase(),
            state.cancelRequested(), List.of(row.withLate(late)), List.of(), List.of(), null, false, null, 0);
      }
      return Transition.nothing(Kind.STALE, "attempt " + row.attempt() + " of '" + row.name() + "' is "
          + row.status() + (state.status().isActive() ? "" : " and the instance is " + state.status()), state);
    }
    Draft d = new Draft(definition, state);
    switch (e.result()) {
      case SUCCESS -> d.end(row, StepStatus.SUCCEEDED, e.output(), null, null, e.messageId(), false);
      case FAILED -> d.end(row, StepStatus.FAILED, null, e.errorCode(), e.reason(), e.messageId(), true);
      case ERROR -> d.end(row, StepStatus.ERROR, null, e.errorCode(), e.reason(), e.messageId(), true);
      // Not executed: the worker got the command after its deadline and did not start it. The attempt is over as if
      // it had timed out (the runtime's own timer was about to say so), with the worker's reason.
      case EXPIRED -> d.timedOut(row, task, EXPIRED, e.reason(), e.messageId());
    }
    d.walk();
    return d.transition();
  }

  /**
   * The attempt in flight whose command the broker refused fails as a worker's {@code failed} would: its step fails
   * and {@code onFailure} applies, but it is not compensated (it never ran; a FAILED step is not); a compensation
   * refused ends the instance FAILED, as a failed compensation does.
   */
  private Transition onRefused(WorkflowDefinition definition, InstanceState state, Stimulus.Refused refused) {
    StepState row = null;
    for (StepState s : state.steps()) {
      if (s.isRunning() && refused.commandMessageId().equals(s.commandMessageId())) {
        row = s;
      }
    }
    if (row == null) {
      return Transition.nothing(Kind.STALE, "no attempt in flight sent command " + refused.commandMessageId(),
          state);
    }
    Draft d = new Draft(definition, state);
    d.end(row, StepStatus.FAILED, null, refused.errorCode(), refused.reason(), null, true);
    d.walk();
    return d.transition();
  }

  private Transition onCancel(WorkflowDefinition definition, InstanceState state, Cancel cancel) {
    if (state.status() == InstanceStatus.CANCELLED) {
      return Transition.nothing(Kind.UNCHANGED, null, state);
    }
    if (!state.status().isActive()) {
      return Transition.nothing(Kind.REFUSED, "instance is " + state.status()
          + "; only RUNNING or COMPENSATING instances can be cancelled", state);
    }
    Draft d = new Draft(definition, state);
    d.cancel(cancel);
    return d.transition();
  }

  // --- one decision in the making -------------------------------------------------------------------------------

  private final class Draft {
    final WorkflowDefinition definition;
    final InstanceState state;
    /** Every step of the definition, nested ones included, in declaration order. */
    final List<Step> all;
    final Map<String, Step> byName = new HashMap<>();
    final Map<String, String> parents = new HashMap<>();
    /** The map each step inside a map's iterations belongs to (maps do not nest). */
    final Map<String, Step.Map> mapOf = new HashMap<>();
    final Map<String, StepState> latest;
    final Map<String, StepState> written = new LinkedHashMap<>();
    final List<Dispatch> dispatches = new ArrayList<>();
    final List<SignalUse> signalsUsed = new ArrayList<>();
    final List<Transition.ChildStart> childStarts = new ArrayList<>();
    final List<StoredSignal> signals;
    InstanceStatus status;
    Phase phase;
    boolean cancelRequested;
    LastError lastError;
    boolean withdraw;
    String currentStep;
    int currentAttempt;
    int nextSeq;
    /** A step failed: nothing new starts anywhere; what is in flight is awaited, then onFailure applies. */
    boolean halted;
    /** The instance's own deadline has passed: going forward, it times out instead of starting anything. */
    boolean pastDeadline;

    Draft(WorkflowDefinition definition, InstanceState state) {
      this.definition = definition;
      this.state = state;
      this.all = definition.allSteps();
      index(definition.steps(), null, null);
      this.latest = latestByName(state.steps());
      this.signals = new LinkedList<>(state.signals());
      this.status = state.status();
      this.phase = state.phase();
      this.cancelRequested = state.cancelRequested();
      this.nextSeq = nextSeq(state.steps());
      this.pastDeadline = state.pastDeadline();
    }

    private void index(List<Step> level, String parent, Step.Map map) {
      for (Step s : level) {
        byName.put(s.name(), s);
        if (parent != null) {
          parents.put(s.name(), parent);
        }
        if (map != null) {
          mapOf.put(s.name(), map);
        }
        index(s.children(), s.name(), s instanceof Step.Map m ? m : map);
      }
    }

    /** The scope a row runs in: its map's iteration, or the top. */
    Scope scopeOf(StepState row) {
      Step.Map map = mapOf.get(row.definitionName());
      return map == null ? Scope.TOP : new Scope(map, row.iteration());
    }

    Transition transition() {
      return new Transition(Kind.MOVED, null, status, phase, cancelRequested, List.copyOf(written.values()),
          dispatches, signalsUsed, lastError, withdraw, currentStep, currentAttempt, childStarts);
    }

    StepState latest(String name) {
      return latest.get(name);
    }

    void put(StepState row) {
      latest.put(row.name(), row);
      written.put(row.name() + "#" + row.attempt(), row);
    }

    /** @param failure the end is a failure of the step (not a timeout that is sent again) */
    void end(StepState row, StepStatus to, JsonNode output, String code, String reason, String messageId,
        boolean failure) {
      put(row.ended(to, output, code, reason, nextSeq++, messageId));
      // A failure inside a map's iteration fails the iteration; the map decides whether that fails anything more.
      if (failure && (row.iteration() < 0 || row.isCompensation())) {
        lastError = new LastError(row.name(), row.kind(), row.action(), row.attempt(), to, code, reason);
        if (!row.isCompensation()) {
          halted = true;
        }
      }
    }

    // --- walking forward ---

    void walk() {
      if (phase == Phase.COMPENSATION) {
        compensate();
        return;
      }
      status = InstanceStatus.RUNNING;
      boolean deadline = timesOutWhole();
      if (deadline) {
        timeOutWhole();
      }
      halted |= forwardFailed();
      Progress p = advance(definition.steps(), null, Scope.TOP);
      // Past the deadline with every step done (the last answer came after it, before its timer): nothing was left
      // to time out, and the instance succeeded.
      if (p == Progress.DONE && (!halted || deadline && !forwardFailed())) {
        finish(InstanceStatus.SUCCEEDED);
        return;
      }
      if (!halted) {
        return; // waiting for steps in flight
      }
      // A failure: waits and delays have nothing to await; tasks in flight are awaited (or time out). A child instance
      // in flight is not awaited either: it is cancelled (with compensation when this instance compensates).
      for (StepState row : List.copyOf(latest.values())) {
        if (row.isRunning() && !row.isCompensation() && (row.kind().equals("wait") || row.kind().equals("delay")
            || row.kind().equals("workflow"))) {
          end(row, StepStatus.CANCELLED, null, null, "a step failed", null, false);
        }
      }
      if (taskInFlight() || childrenUndoing()) {
        return;
      }
      for (StepState row : List.copyOf(latest.values())) {
        if (row.isRunning()) { // parallel and choice steps around the failure
          end(row, StepStatus.FAILED, null, null, "a step inside failed", null, false);
        }
      }
      if (deadline && lastError == null) { // nothing was in flight: the deadline itself is the failure
        lastError = new LastError(null, null, null, 0, StepStatus.TIMED_OUT, INSTANCE_TIMEOUT, deadlineReason());
      }
      concludeFailure();
    }

    /** Starts what may start in a sequence; says whether it is done, waiting, or failed. */
    Progress advance(List<Step> sequence, String parent, Scope scope) {
      for (Step step : sequence) {
        StepState row = latest(scope.rowName(step));
        if (row == null) {
          if (halted) {
            return Progress.FAILED;
          }
          start(step, parent, 1, scope);
          row = latest(scope.rowName(step));
        }
        if (row.status() == StepStatus.SUCCEEDED) {
          continue;
        }
        if (!row.isRunning()) {
          return Progress.FAILED;
        }
        Progress p = inFlight(step, row, scope);
        if (p != Progress.DONE) {
          return p;
        }
      }
      return Progress.DONE;
    }

    /** A step in flight: a group goes on inside; a wait looks for its signal; a task or delay waits. */
    Progress inFlight(Step step, StepState row, Scope scope) {
      if (step instanceof Step.Map map) {
        return iterate(map, row);
      }
      if (step instanceof Step.Parallel par) {
        boolean done = true;
        boolean failed = false;
        for (List<Step> branch : par.branches()) {
          Progress p = advance(branch, row.name(), scope);
          done &= p == Progress.DONE;
          failed |= p == Progress.FAILED;
        }
        return done ? groupDone(row) : failed ? Progress.FAILED : Progress.WAITING;
      }
      if (step instanceof Step.Choice choice) {
        Progress p = advance(chosenSteps(choice, row.chosen()), row.name(), scope);
        return p == Progress.DONE ? groupDone(row) : p;
      }
      if (step instanceof Step.Child && !halted) {
        return childInFlight(row);
      }
      if (step instanceof Step.Wait wait && !halted) {
        for (Iterator<StoredSignal> it = signals.iterator(); it.hasNext(); ) {
          StoredSignal signal = it.next();
          if (signal.name().equals(wait.signal())) {
            it.remove();
            signalsUsed.add(new SignalUse(signal.id(), row.name()));
            end(row, StepStatus.SUCCEEDED, signal.body(), null, null, null, false);
            return Progress.DONE;
          }
        }
      }
      return Progress.WAITING;
    }

    /**
     * A map in flight: each iteration started goes on inside; the next ones (in item order) start while fewer than
     * {@code maxConcurrency} run and nothing failed beyond what is tolerated. An iteration ends with its steps: its
     * output is its last step's; a failure inside it fails it. More failed iterations than {@code toleratedFailures}
     * fail the map as a failure anywhere else would (nothing new starts; what is in flight is awaited). When every
     * iteration has ended, the map's output is their outputs in item order (null for a tolerated failure).
     */
    Progress iterate(Step.Map map, StepState row) {
      int count = row.items() == null ? 0 : row.items().size();
      int running = 0;
      int failed = 0;
      for (int i = 0; i < count; i++) {
        StepState it = latest(IterationNames.of(map.name(), i));
        if (it != null && it.isRunning()) {
          running++;
        } else if (it != null && it.status() != StepStatus.SUCCEEDED) {
          failed++;
        }
      }
      boolean allEnded = true;
      StepState failure = null;
      for (int i = 0; i < count; i++) {
        String name = IterationNames.of(map.name(), i);
        StepState it = latest(name);
        if (it == null) {
          if (halted || failed > map.toleratedFailures()
              || map.maxConcurrency() > 0 && running >= map.maxConcurrency()) {
            allEnded = false;
            continue;
          }
          started(StepState.started(name, "iteration", row.name(), 1, 1, null, null, null));
          it = latest(name);
          running++;
        }
        if (!it.isRunning()) {
          continue;
        }
        Scope scope = new Scope(map, i);
        Progress p = advance(map.steps(), name, scope);
        if (p == Progress.WAITING) {
          allEnded = false;
          continue;
        }
        running--;
        if (p == Progress.DONE) {
          StepState last = latest(scope.rowName(map.last()));
          end(it, StepStatus.SUCCEEDED, last == null ? null : last.output(), null, null, null, false);
        } else {
          StepState cause = failureIn(scope);
          closeIteration(scope);
          end(it, StepStatus.FAILED, null, cause == null ? null : cause.errorCode(),
              cause == null ? "a step inside failed" : cause.name() + ": " + cause.errorReason(), null, false);
          failed++;
          if (failed > map.toleratedFailures() && failure == null) {
            failure = cause;
          }
        }
      }
      if (failed > map.toleratedFailures()) {
        // The failure that went past the tolerance is the instance's last error (once: a later walk finds the map
        // already past it, awaiting what is in flight).
        if (failure != null && !halted) {
          lastError = new LastError(failure.name(), failure.kind(), failure.action(), failure.attempt(),
              failure.status(), failure.errorCode(), failure.errorReason());
        }
        halted = true;
        return Progress.FAILED;
      }
      if (!allEnded) {
        return Progress.WAITING;
      }
      ArrayNode outputs = Json.MAPPER.createArrayNode();
      for (int i = 0; i < count; i++) {
        StepState it = latest(IterationNames.of(map.name(), i));
        outputs.add(it.status() == StepStatus.SUCCEEDED && it.output() != null ? it.output()
            : Json.MAPPER.nullNode());
      }
      end(row, StepStatus.SUCCEEDED, outputs, null, null, null, false);
      return Progress.DONE;
    }

    /** The step whose failure failed an iteration: the latest failed row inside it. */
    StepState failureIn(Scope scope) {
      StepState cause = null;
      for (StepState r : latest.values()) {
        if (!r.isCompensation() && r.status().isFailure() && scope.holds(r, mapOf)
            && (cause == null || seqOf(r) > seqOf(cause))) {
          cause = r;
        }
      }
      return cause;
    }

    /**
     * A failed iteration stops: the groups and waits inside it end with it; a task in flight inside it is left to
     * answer (or time out), so that what it did is known before anything is compensated.
     */
    void closeIteration(Scope scope) {
      for (StepState r : List.copyOf(latest.values())) {
        if (r.isRunning() && !r.kind().equals("task") && scope.holds(r, mapOf)) {
          end(r, r.isGroup() ? StepStatus.FAILED : StepStatus.CANCELLED, null, null,
              r.isGroup() ? "a step inside failed" : "its iteration failed", null, false);
        }
      }
    }

    /** A child workflow step ends with its child: SUCCEEDED with the child's outputs, else failed with its reason. */
    Progress childInFlight(StepState row) {
      InstanceState.ChildState child = state.children().get(row.name());
      if (child == null || child.forAttempt() < row.attempt() || child.status().isActive()) {
        return Progress.WAITING;
      }
      if (child.status() == InstanceStatus.SUCCEEDED) {
        end(row, StepStatus.SUCCEEDED, child.outputs(), null, null, null, false);
        return Progress.DONE;
      }
      end(row, StepStatus.FAILED, null, CHILD_FAILED, "child instance " + child.id() + " ended " + child.status()
          + (child.reason() == null ? "" : ": " + child.reason()), null, true);
      return Progress.FAILED;
    }

    Progress groupDone(StepState row) {
      end(row, StepStatus.SUCCEEDED, null, null, null, null, false);
      return Progress.DONE;
    }

    List<Step> chosenSteps(Step.Choice choice, String chosen) {
      return OTHERWISE.equals(chosen) ? choice.otherwise() : choice.cases().get(Integer.parseInt(chosen)).steps();
    }

    /**
     * Starts a step (a new attempt of it); a choice is decided here, once, and a map's items evaluated here, once; an
     * expression that fails fails the step.
     */
    void start(Step step, String parent, int attempt, Scope scope) {
      String name = scope.rowName(step);
      if (step instanceof Step.Task task) {
        startTask(task, parent, attempt, 1, false, scope);
      } else if (step instanceof Step.Wait wait) {
        started(StepState.started(name, "wait", parent, attempt, 1, null, null, wait.timeout()));
      } else if (step instanceof Step.Delay delay) {
        started(StepState.started(name, "delay", parent, attempt, 1, null, null, delay.duration()));
      } else if (step instanceof Step.Parallel) {
        started(StepState.started(name, "parallel", parent, attempt, 1, null, null, null));
      } else if (step instanceof Step.Choice choice) {
        StepState row = StepState.started(name, "choice", parent, attempt, 1, null, null, null);
        started(row);
        try {
          put(row.choosing(choose(choice, scope)));
        } catch (ExpressionException e) {
          end(row, StepStatus.FAILED, null, EXPRESSION_ERROR, e.getMessage(), null, true);
        }
      } else if (step instanceof Step.Child child) {
        StepState row = StepState.started(name, "workflow", parent, attempt, 1, null, null, child.timeout());
        started(row);
        JsonNode input;
        try {
          input = child.input().isEmpty() ? mergedInput(scope).input() : mapped(child.input(), scope);
        } catch (ExpressionException e) {
          end(row, StepStatus.FAILED, null, EXPRESSION_ERROR, e.getMessage(), null, true);
          return;
        }
        childStarts.add(new Transition.ChildStart(row, child.workflow(), input));
      } else if (step instanceof Step.Map map) {
        StepState row = StepState.started(name, "map", parent, attempt, 1, null, null, null);
        started(row);
        Object items;
        try {
          items = map.items().evaluate(inputForExpressions(), stepsForExpressions(Scope.TOP));
        } catch (ExpressionException e) {
          end(row, StepStatus.FAILED, null, EXPRESSION_ERROR, e.getMessage(), null, true);
          return;
        }
        if (!(items instanceof List<?> list)) {
          end(row, StepStatus.FAILED, null, EXPRESSION_ERROR, "'" + map.items().text() + "' yielded "
              + (items == null ? "null" : Json.write(Json.MAPPER.valueToTree(items))) + ", not a list", null, true);
        } else if (list.size() > Bounds.MAP_ITEMS) {
          end(row, StepStatus.FAILED, null, TOO_MANY_ITEMS, "'" + map.items().text() + "' yielded " + list.size()
              + " items; a map takes at most " + Bounds.MAP_ITEMS, null, true);
        } else {
          put(row.withItems(Json.MAPPER.valueToTree(list)));
        }
      }
    }

    void started(StepState row) {
      put(row);
      currentStep = row.name();
      currentAttempt = row.attempt();
    }

    String choose(Step.Choice choice, Scope scope) {
      Map<String, Object> input = inputForExpressions();
      Map<String, Object> steps = stepsForExpressions(scope);
      Iteration iteration = iteration(scope);
      for (int i = 0; i < choice.cases().size(); i++) {
        if (choice.cases().get(i).when().test(input, steps, iteration)) {
          return Integer.toString(i);
        }
      }
      return OTHERWISE;
    }

    boolean forwardFailed() {
      for (Step step : all) {
        StepState row = latest(step.name());
        if (row != null && row.status().isFailure()) {
          return true;
        }
      }
      return false;
    }

    /**
     * Whether a child instance whose step ended otherwise than by it (a failure elsewhere, a timeout, a cancel) is
     * still going: the engine cancels it after the commit, and it undoes its own completed steps, which are newer than
     * this instance's completed ones.
     */
    boolean childrenUndoing() {
      for (StepState row : latest.values()) {
        if (row.kind().equals("workflow") && !row.isCompensation() && !row.isRunning()
            && row.status() != StepStatus.SUCCEEDED) {
          InstanceState.ChildState child = state.children().get(row.name());
          if (child != null && child.status().isActive()) {
            return true;
          }
        }
      }
      return false;
    }

    boolean taskInFlight() {
      for (StepState row : latest.values()) {
        if (row.isRunning() && row.kind().equals("task") && !row.isCompensation()) {
          return true;
        }
      }
      return false;
    }

    void concludeFailure() {
      if (definition.onFailure() == OnFailure.Stop || compensable().isEmpty()) {
        finish(InstanceStatus.FAILED); // phase stays FORWARD: a retry sends the failed steps again
        return;
      }
      phase = Phase.COMPENSATION;
      compensate();
    }

    // --- compensating ---

    /**
     * The tasks to undo, newest first by the order they ended (across branches): those that declare
     * {@code compensate} and succeeded or may have taken effect in any attempt (timed out, error, cancelled in flight).
     * A step whose every attempt was refused ({@code failed}) or is known not to have run (withdrawn unsent, expired at
     * the worker) is not undone.
     */
    List<StepState> compensable() {
      List<StepState> rows = new ArrayList<>();
      for (StepState row : latest.values()) {
        if (row.kind().equals("task") && !row.isCompensation() && !row.isRunning()
            && byName.get(row.definitionName()) instanceof Step.Task t && t.isCompensable()
            && anyMayHaveTakenEffect(row.name())) {
          rows.add(row);
        } else if (row.kind().equals("workflow") && !row.isCompensation()
            && row.status() == StepStatus.SUCCEEDED) {
          rows.add(row); // a child that succeeded: its completed steps are undone (one that failed undid its own)
        }
      }
      rows.sort(Comparator.comparingInt(StateMachine::seqOf).reversed());
      return rows;
    }

    /**
     * Whether any attempt of the step may have taken effect, not only its last: an attempt that timed out may have
     * run, and a later one that expired, was withdrawn or was refused does not undo it.
     */
    boolean anyMayHaveTakenEffect(String name) {
      Map<String, StepState> attempts = new LinkedHashMap<>();
      for (StepState r : state.steps()) {
        if (r.name().equals(name)) {
          attempts.put(name + "#" + r.attempt(), r);
        }
      }
      written.forEach((key, r) -> {
        if (r.name().equals(name)) {
          attempts.put(key, r);
        }
      });
      return attempts.values().stream().anyMatch(r -> !r.isRunning() && r.status().mayHaveTakenEffect()
          && !NOT_SENT.equals(r.errorCode()) && !EXPIRED.equals(r.errorCode()));
    }

    void compensate() {
      status = InstanceStatus.COMPENSATING;
      if (taskInFlight() || childrenUndoing()) {
        // A forward task may still take effect, and a child stopped in flight is still undoing its own steps (newer
        // than any completed here): undoing starts once they have answered, timed out or ended.
        return;
      }
      for (StepState undone : compensable()) {
        StepState c = latest(StepState.compensationOf(undone.name()));
        if (undone.kind().equals("workflow")) {
          if (c == null) {
            // The child is told to compensate once this commits; the row ends when the child has.
            started(StepState.started(StepState.compensationOf(undone.name()), "workflow", undone.parent(), 1, 1, null,
                null, null));
            return;
          }
          if (c.isRunning() && !childCompensated(c)) {
            return;
          }
          c = latest(c.name());
          if (c.status() != StepStatus.SUCCEEDED) {
            finish(InstanceStatus.FAILED);
            return;
          }
          continue;
        }
        if (c == null) {
          startTask((Step.Task) byName.get(undone.definitionName()), undone.parent(), 1, 1, true, scopeOf(undone));
          if (!latest(StepState.compensationOf(undone.name())).isRunning()) {
            compensate(); // it could not be sent (its mapping failed, or it is too large): a failed compensation
          }
          return;
        }
        if (c.isRunning()) {
          return;
        }
        if (c.status() != StepStatus.SUCCEEDED) {
          finish(InstanceStatus.FAILED); // a compensation failed: a retry sends it again
          return;
        }
      }
      finish(cancelRequested ? InstanceStatus.CANCELLED : InstanceStatus.COMPENSATED);
    }

    /**
     * A child's compensation in flight: ends SUCCEEDED once the child is COMPENSATED (or CANCELLED, which undid it),
     * FAILED when its compensation failed; otherwise it goes on.
     *
     * @return whether it ended
     */
    boolean childCompensated(StepState compensation) {
      InstanceState.ChildState child = state.children().get(compensation.stepName());
      if (child == null || child.status().isActive() || child.status() == InstanceStatus.SUCCEEDED) {
        return false;
      }
      boolean undone = child.status() == InstanceStatus.COMPENSATED || child.status() == InstanceStatus.CANCELLED;
      end(compensation, undone ? StepStatus.SUCCEEDED : StepStatus.FAILED, null, undone ? null : CHILD_FAILED,
          undone ? null : "child instance " + child.id() + " ended " + child.status() + " while compensating"
              + (child.reason() == null ? "" : ": " + child.reason()), null, !undone);
      return true;
    }

    // --- stimuli other than results ---

    /** @return whether any step was due */
    boolean timersDue() {
      boolean any = false;
      // The timeouts that may be sent again are decided last, once every failure among the due steps is known: a
      // re-send decided first would start a step in the very transaction that fails its group.
      List<StepState> resendable = new ArrayList<>();
      for (StepState row : List.copyOf(latest.values())) {
        if (!row.isRunning() || !row.due()) {
          continue;
        }
        any = true;
        Step step = byName.get(row.definitionName());
        if (step instanceof Step.Task task && mayBeSentAgain(task, row)) {
          resendable.add(row);
        } else if (step instanceof Step.Task task) {
          timedOut(row, task, TIMEOUT, TIMEOUT, null);
        } else if (step instanceof Step.Delay) {
          end(row, StepStatus.SUCCEEDED, null, null, null, null, false);
        } else {
          end(row, StepStatus.TIMED_OUT, null, TIMEOUT, TIMEOUT, null, true); // a wait without its signal
        }
      }
      for (StepState row : resendable) {
        timedOut(row, (Step.Task) byName.get(row.definitionName()), TIMEOUT, TIMEOUT, null);
      }
      return any;
    }

    /** Going forward past the instance's deadline: the instance times out, whatever the stimulus was. */
    boolean timesOutWhole() {
      return pastDeadline && phase == Phase.FORWARD;
    }

    /**
     * The whole instance ran past its deadline: every step in flight times out with it (reason {@link #TIMEOUT},
     * code {@link #INSTANCE_TIMEOUT}), a failure, and nothing starts any more; the walk then fails the groups around
     * them and {@code onFailure} applies. A task in flight counts as a timed-out attempt, so it is compensated when it
     * declares {@code compensate}: its command's {@code baton-deadline} is never later than the instance's, so no
     * worker can start it any more and its compensation cannot overtake it. Its command, if still unpublished, is
     * withdrawn (the compensation this decision queues is not: the same statement).
     */
    void timeOutWhole() {
      String reason = deadlineReason();
      for (StepState row : List.copyOf(latest.values())) {
        if (row.isRunning() && !row.isGroup()) {
          end(row, StepStatus.TIMED_OUT, null, INSTANCE_TIMEOUT, reason, null, true);
          withdraw = true;
        }
      }
      halted = true;
    }

    String deadlineReason() {
      return TIMEOUT + ": the instance ran past its deadline (spec.timeout"
          + (definition.timeout() == null ? "" : " " + BatonDuration.ofMillis(definition.timeout().toMillis()))
          + ")";
    }

    boolean mayBeSentAgain(Step.Task task, StepState row) {
      return task.onTimeout() == OnTimeout.Redispatch && row.dispatches() < task.maxDispatches();
    }

    /**
     * A task attempt that is over without an answer: by its deadline, or by the worker's {@code expired}. It is sent
     * again (a new attempt, with a deadline of its own) when its step says {@code Redispatch} and has sends left, the
     * instance goes forward and nothing failed; otherwise it is a failure of its step.
     */
    void timedOut(StepState row, Step.Task task, String code, String reason, String messageId) {
      boolean forward = phase == Phase.FORWARD && !cancelRequested && !pastDeadline;
      boolean resend = mayBeSentAgain(task, row) && (row.isCompensation() || forward && !forwardFailed());
      end(row, StepStatus.TIMED_OUT, null, code, reason, messageId, !resend);
      if (resend) {
        startTask(task, row.parent(), row.attempt() + 1, row.dispatches() + 1, row.isCompensation(), scopeOf(row));
      }
    }

    /**
     * @param cancel with compensation or not, and the commands of the instance withdrawn unpublished (their tasks never
     *     reached a worker)
     */
    void cancel(Cancel cancel) {
      boolean compensate = cancel.compensate();
      java.util.Set<UUID> withdrawn = cancel.withdrawn();
      cancelRequested |= compensate;
      if (!cancel.stops(status, phase)) {
        return; // already undoing: it ends CANCELLED instead of COMPENSATED
      }
      withdraw = true;
      if (!compensate) {
        finish(InstanceStatus.CANCELLED);
        return;
      }
      // A task whose command may already be at a worker is awaited, its answer or its deadline, before any
      // compensation starts: undoing first could let its effect land afterwards, never to be undone. The others
      // (waits, delays, groups, tasks whose command was withdrawn unsent) stop now.
      for (StepState row : List.copyOf(latest.values())) {
        boolean task = row.kind().equals("task") && !row.isCompensation() && row.commandMessageId() != null;
        if (!row.isRunning() || task && !withdrawn.contains(row.commandMessageId())) {
          continue;
        }
        end(row, StepStatus.CANCELLED, null, task ? NOT_SENT : null,
            task ? "Cancelled before its command was sent: it never ran" : "Cancelled", null, false);
      }
      phase = Phase.COMPENSATION;
      compensate();
    }

    /**
     * The failed steps again, as new attempts: a failed or cancelled task, wait or delay, and a choice whose
     * expression failed, start again; a parallel or choice step that failed because of a step inside it carries on
     * (its choice stands). Then the walk goes on from there. A failed compensation is sent again.
     */
    void retry() {
      if (phase == Phase.FORWARD) {
        // In definition order, each step's rows (a step in a map has one per iteration) in the order they started.
        List<StepState> rows = new ArrayList<>();
        for (Step step : all) {
          latest.values().stream().filter(r -> r.definitionName().equals(step.name())).forEach(rows::add);
        }
        for (StepState row : rows) {
          Step step = byName.get(row.definitionName());
          if (row.isCompensation() || !(row.status().isFailure()
              || row.status() == StepStatus.CANCELLED)) {
            continue;
          }
          Scope scope = scopeOf(row);
          Step.Map map = row.kind().equals("iteration") ? (Step.Map) step : scope.map();
          if (map != null && latest(map.name()).status() == StepStatus.SUCCEEDED) {
            continue; // an iteration whose failure its map tolerated stays as it ended
          }
          if (row.kind().equals("iteration")) {
            put(row.reopened());
            continue;
          }
          // A map that evaluated its items, a parallel, a choice that chose: carry on inside, as they were.
          boolean group = step instanceof Step.Parallel || step instanceof Step.Map && row.items() != null
              || step instanceof Step.Choice && row.chosen() != null;
          if (group) {
            put(row.reopened());
          } else {
            start(step, row.parent(), row.attempt() + 1, scope);
          }
        }
        walk();
        return;
      }
      for (StepState c : List.copyOf(latest.values())) {
        if (c.isCompensation() && c.status() != StepStatus.SUCCEEDED && !c.isRunning() && c.kind().equals("workflow")) {
          started(StepState.started(c.name(), "workflow", c.parent(), c.attempt() + 1, 1, null, null, null));
        } else if (c.isCompensation() && c.status() != StepStatus.SUCCEEDED && !c.isRunning()) {
          startTask((Step.Task) byName.get(c.definitionName()), c.parent(), c.attempt() + 1, 1, true, scopeOf(c));
        }
      }
      compensate();
    }

    // --- tasks ---

    /** Starts a task's (or its compensation's) attempt with its command, or fails it when its mapping fails. */
    void startTask(Step.Task task, String parent, int attempt, int sends, boolean compensation, Scope scope) {
      String name = compensation ? StepState.compensationOf(scope.rowName(task)) : scope.rowName(task);
      StepState row = StepState.started(name, "task", parent, attempt, sends,
          compensation ? task.compensate() : task.action(), messageIds.get(), task.timeout());
      started(row);
      JsonNode input;
      ObjectNode outputs = null;
      if (task.hasMappedInput()) {
        try {
          input = mappedInput(task, scope);
        } catch (ExpressionException e) {
          // Nothing was sent: the attempt fails as the expression did (and a compensation's failure fails the
          // instance, as a failed compensation does).
          end(row.withoutCommand(), StepStatus.FAILED, null, EXPRESSION_ERROR, e.getMessage(), null, true);
          return;
        }
      } else {
        MergedInput in = mergedInput(scope);
        input = in.input();
        outputs = in.outputs();
      }
      long bytes = Json.writeBytes(input).length + (outputs == null ? 0 : Json.writeBytes(outputs).length);
      long broker = brokerCommandBytes.getAsLong();
      long limit = Math.min(maxCommandBytes, broker);
      if (bytes > limit) {
        // Nothing is sent: the step fails (a compensation's failure fails the instance), as it would at the broker,
        // but at once and with the reason, instead of a command the broker refuses.
        end(row.withoutCommand(), StepStatus.FAILED, null, PAYLOAD_TOO_LARGE, "its command would carry " + bytes
            + " bytes of input and earlier outputs, over the limit of " + limit + (broker < maxCommandBytes
                ? " (what the broker's max_message_size leaves for a command's input)"
                : " (BATON_MAX_COMMAND_BYTES)"), null, true);
        return;
      }
      dispatches.add(new Dispatch(row, task, compensation, input, outputs));
    }

    /** A task's {@code input} mapping: exactly the mapped object, key by key. */
    ObjectNode mappedInput(Step.Task task, Scope scope) {
      return mapped(task.input(), scope);
    }

    /** An {@code input} mapping (a task's, a child's), evaluated key by key in the scope. */
    ObjectNode mapped(Map<String, Expression> mapping, Scope scope) {
      Map<String, Object> input = inputForExpressions();
      Map<String, Object> steps = stepsForExpressions(scope);
      Iteration iteration = iteration(scope);
      ObjectNode mapped = Json.object();
      for (Map.Entry<String, Expression> e : new TreeMap<>(mapping).entrySet()) {
        mapped.set(e.getKey(), Json.MAPPER.valueToTree(e.getValue().evaluate(input, steps, iteration)));
      }
      return mapped;
    }

    /** A map iteration's {@code item} and {@code index}; null at the top. */
    Iteration iteration(Scope scope) {
      if (scope.map() == null) {
        return null;
      }
      JsonNode items = latest(scope.map().name()).items();
      return new Iteration(items == null ? null : items.get(scope.index()), scope.index());
    }

    /**
     * Today's command input: the instance input with each earlier step's output object merged in, in definition
     * order (later wins); outputs that are not objects cannot be merged and travel by step name instead.
     */
    MergedInput mergedInput(Scope scope) {
      ObjectNode merged = state.input().deepCopy();
      ObjectNode rest = null;
      for (Step step : all) {
        if (!scope.sees(step, mapOf)) {
          continue;
        }
        StepState row = latest(scope.rowName(step));
        if (row == null || row.status() != StepStatus.SUCCEEDED || row.output() == null || row.output().isNull()) {
          continue;
        }
        if (row.output() instanceof ObjectNode o) {
          merged.setAll(o);
        } else {
          if (rest == null) {
            rest = Json.object();
          }
          rest.set(step.name(), row.output());
        }
      }
      Iteration iteration = iteration(scope);
      if (iteration != null) { // a task of a map's iteration without a mapping also gets its item and index
        merged.set("item", Json.MAPPER.valueToTree(iteration.item()));
        merged.put("index", iteration.index());
      }
      return new MergedInput(merged, rest);
    }

    @SuppressWarnings("unchecked")
    Map<String, Object> inputForExpressions() {
      return Json.MAPPER.convertValue(state.input(), Map.class);
    }

    /**
     * {@code steps} of an expression: the finished steps, name to {status, output}; inside a map's iteration, the
     * steps of that iteration by their own names.
     */
    Map<String, Object> stepsForExpressions(Scope scope) {
      Map<String, Object> steps = new HashMap<>();
      for (Step step : all) {
        if (!scope.sees(step, mapOf)) {
          continue;
        }
        StepState row = latest(scope.rowName(step));
        if (row != null && !row.isRunning()) {
          Map<String, Object> result = new HashMap<>();
          result.put("status", row.status().name());
          result.put("output", row.output());
          steps.put(step.name(), result);
        }
      }
      return steps;
    }

    void cancelInFlight(String reason) {
      for (StepState row : List.copyOf(latest.values())) {
        if (row.isRunning()) {
          end(row, StepStatus.CANCELLED, null, null, reason, null, false);
        }
      }
    }

    void finish(InstanceStatus end) {
      cancelInFlight("Instance " + end);
      status = end;
      // An instance that ends otherwise than by succeeding may leave commands in the outbox (a branch's, a timed-out
      // step's while the relay was stalled): withdrawn, a worker never receives them. A succeeded one has none.
      withdraw |= end != InstanceStatus.SUCCEEDED;
    }
  }

  private record MergedInput(ObjectNode input, ObjectNode outputs) {}

  /**
   * Where a step runs: at the top (a step outside any map), or in iteration {@code index} of {@code map}, whose steps'
   * rows are named {@code <step>[<index>]}.
   */
  record Scope(Step.Map map, int index) {

    static final Scope TOP = new Scope(null, -1);

    /** The name of the step's row in this scope. */
    String rowName(Step step) {
      return map == null ? step.name() : IterationNames.of(step.name(), index);
    }

    /** Whether the step's row is seen from here: the top's steps from anywhere, an iteration's only from inside. */
    boolean sees(Step step, Map<String, Step.Map> mapOf) {
      Step.Map of = mapOf.get(step.name());
      return of == null || map != null && of.name().equals(map.name());
    }

    /** Whether a row runs inside this iteration. */
    boolean holds(StepState row, Map<String, Step.Map> mapOf) {
      Step.Map of = mapOf.get(row.definitionName());
      return map != null && of != null && of.name().equals(map.name()) && row.iteration() == index;
    }
  }

  private enum Progress { DONE, WAITING, FAILED }

  private static int seqOf(StepState row) {
    return row.finishSeq() == null ? Integer.MAX_VALUE : row.finishSeq();
  }

  /** The latest attempt of each step (and of each compensation), by name, in the order they first started. */
  static Map<String, StepState> latestByName(List<StepState> rows) {
    Map<String, StepState> latest = new LinkedHashMap<>();
    for (StepState row : rows) {
      latest.merge(row.name(), row, (a, b) -> b.attempt() >= a.attempt() ? b : a);
    }
    return latest;
  }

  private static int nextSeq(List<StepState> rows) {
    int max = 0;
    for (StepState row : rows) {
      if (row.finishSeq() != null) {
        max = Math.max(max, row.finishSeq());
      }
    }
    return max + 1;
  }
}
