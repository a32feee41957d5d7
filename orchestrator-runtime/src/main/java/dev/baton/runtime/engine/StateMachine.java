package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.runtime.engine.InstanceState.StoredSignal;
import dev.baton.runtime.engine.Stimulus.Cancel;
import dev.baton.runtime.engine.Stimulus.Result;
import dev.baton.runtime.engine.Stimulus.Retry;
import dev.baton.runtime.engine.Stimulus.SignalStored;
import dev.baton.runtime.engine.Stimulus.Start;
import dev.baton.runtime.engine.Stimulus.TimersDue;
import dev.baton.runtime.engine.Transition.Dispatch;
import dev.baton.runtime.engine.Transition.Kind;
import dev.baton.runtime.engine.Transition.LastError;
import dev.baton.runtime.engine.Transition.SignalUse;
import dev.baton.runtime.json.Json;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The state machine of an instance (docs/design.md#runtime-semantics), pure: a definition, the locked
 * {@link InstanceState} and a {@link Stimulus} in, a {@link Transition} out. No I/O and no clock (deadlines are
 * durations; the database says which are due), so every rule is tested in tables and the step loop, the timer sweep
 * and the API move instances by the same rules.
 *
 * <p>The state is the rows: after applying the stimulus to the attempt it concerns, the machine walks the
 * definition from the top and starts what may start now. Walking forward, a step without a row starts; a step in
 * flight holds its sequence; a failure anywhere stops every start ("halted"), steps in flight are awaited, and then
 * {@code onFailure} applies. Compensation undoes, one at a time and newest first by the order in which they ended,
 * the tasks that declare {@code compensate} and succeeded or may have taken effect (timed out, error, cancelled in
 * flight).
 */
public final class StateMachine {

  /** The error code and reason of a step that got no answer in time. */
  public static final String TIMEOUT = "Timeout";

  private final Supplier<UUID> messageIds;

  /** @param messageIds the message id of each command sent (random in the runtime, counted in tests) */
  public StateMachine(Supplier<UUID> messageIds) {
    this.messageIds = messageIds;
  }

  public Transition decide(WorkflowDefinition definition, InstanceState state, Stimulus stimulus) {
    if (stimulus instanceof Result r) {
      return onResult(definition, state, r.event());
    }
    if (stimulus instanceof Cancel c) {
      return onCancel(definition, state, c.compensate());
    }
    if (stimulus instanceof Retry) {
      if (state.status() != InstanceStatus.FAILED) {
        return Transition.nothing(Kind.REFUSED,
            "instance is " + state.status() + "; only FAILED instances can be retried", state);
      }
      Draft d = new Draft(definition, state);
      d.retry();
      return d.transition();
    }
    if (!state.status().isActive()) {
      return Transition.nothing(Kind.STALE, "instance is " + state.status(), state);
    }
    Draft d = new Draft(definition, state);
    if (stimulus instanceof Start) {
      d.walk();
    } else if (stimulus instanceof TimersDue) {
      if (!d.timersDue()) {
        return Transition.nothing(Kind.STALE, "no step in flight is due", state);
      }
      d.walk();
    } else if (stimulus instanceof SignalStored) {
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
    StepDefinition task = definition.stepNamed(e.step()).orElse(null);
    if (task == null) {
      return Transition.nothing(Kind.STALE, "step '" + e.step() + "' is not a task of this workflow", state);
    }
    List<String> series = new ArrayList<>(2);
    if (e.action().equals(task.action())) {
      series.add(task.name());
    }
    if (e.action().equals(task.compensate())) {
      series.add(StepState.compensationOf(task.name()));
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
          "attempt " + e.attempt() + " of '" + task.name() + "' (" + e.action() + ") was never sent", state);
    }
    if (e.messageId().equals(row.resultMessageId())) {
      return Transition.nothing(Kind.DUPLICATE, "event " + e.messageId() + " already ended that attempt", state);
    }
    if (!row.isRunning() || !state.status().isActive()) {
      if (row.status().acceptsLateResult() && row.late() == null) {
        ObjectNode late = Json.object();
        late.put("result", e.result().name().toLowerCase(java.util.Locale.ROOT));
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
    }
    d.walk();
    return d.transition();
  }

  private Transition onCancel(WorkflowDefinition definition, InstanceState state, boolean compensate) {
    if (state.status() == InstanceStatus.CANCELLED) {
      return Transition.nothing(Kind.UNCHANGED, null, state);
    }
    if (!state.status().isActive()) {
      return Transition.nothing(Kind.REFUSED, "instance is " + state.status()
          + "; only RUNNING or COMPENSATING instances can be cancelled", state);
    }
    Draft d = new Draft(definition, state);
    d.cancel(compensate);
    return d.transition();
  }

  // --- one decision in the making -------------------------------------------------------------------------------

  private final class Draft {
    final WorkflowDefinition definition;
    final InstanceState state;
    final Map<String, StepState> latest;
    final Map<String, StepState> written = new LinkedHashMap<>();
    final List<Dispatch> dispatches = new ArrayList<>();
    final List<SignalUse> signalsUsed = new ArrayList<>();
    final Deque<StoredSignal> signals;
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

    Draft(WorkflowDefinition definition, InstanceState state) {
      this.definition = definition;
      this.state = state;
      this.latest = latestByName(state.steps());
      this.signals = new ArrayDeque<>(state.signals());
      this.status = state.status();
      this.phase = state.phase();
      this.cancelRequested = state.cancelRequested();
      this.nextSeq = nextSeq(state.steps());
    }

    Transition transition() {
      return new Transition(Kind.MOVED, null, status, phase, cancelRequested, List.copyOf(written.values()),
          dispatches, signalsUsed, lastError, withdraw, currentStep, currentAttempt);
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
      StepState ended = row.ended(to, output, code, reason, nextSeq++, messageId);
      put(ended);
      if (failure) {
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
      halted |= forwardFailed();
      Progress p = halted ? Progress.FAILED : advance(definition.steps());
      if (p == Progress.DONE && !halted) {
        finish(InstanceStatus.SUCCEEDED);
        return;
      }
      if (!halted) {
        return; // waiting for steps in flight
      }
      if (forwardTaskInFlight()) {
        return; // a failure elsewhere: in-flight tasks are awaited (or time out) before onFailure applies
      }
      concludeFailure();
    }

    /** Starts what may start in a sequence; says whether it is done, waiting, or failed. */
    Progress advance(List<StepDefinition> sequence) {
      for (StepDefinition step : sequence) {
        StepState row = latest(step.name());
        if (row == null) {
          if (halted) {
            return Progress.FAILED;
          }
          startTask(step, null, 1, 1, false);
          row = latest(step.name());
        }
        if (row.status() == StepStatus.SUCCEEDED) {
          continue;
        }
        if (row.isRunning()) {
          return Progress.WAITING;
        }
        return Progress.FAILED;
      }
      return Progress.DONE;
    }

    boolean forwardFailed() {
      for (StepDefinition step : definition.steps()) {
        StepState row = latest(step.name());
        if (row != null && row.status().isFailure()) {
          return true;
        }
      }
      return false;
    }

    boolean forwardTaskInFlight() {
      for (StepDefinition step : definition.steps()) {
        StepState row = latest(step.name());
        if (row != null && row.isRunning()) {
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
     * The tasks to undo, newest first by the order they ended: those that declare {@code compensate} and succeeded
     * or may have taken effect (timed out, error, cancelled in flight). A {@code failed} one is not undone.
     */
    List<StepDefinition> compensable() {
      List<StepDefinition> tasks = new ArrayList<>();
      for (StepDefinition t : definition.steps()) {
        StepState row = latest(t.name());
        if (t.isCompensable() && row != null && !row.isRunning() && row.status().mayHaveTakenEffect()) {
          tasks.add(t);
        }
      }
      tasks.sort(Comparator.comparingInt((StepDefinition t) -> seqOf(latest(t.name()))).reversed());
      return tasks;
    }

    void compensate() {
      status = InstanceStatus.COMPENSATING;
      for (StepDefinition t : compensable()) {
        StepState c = latest(StepState.compensationOf(t.name()));
        if (c == null) {
          startTask(t, null, 1, 1, true);
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

    // --- stimuli other than results ---

    /** @return whether any step was due */
    boolean timersDue() {
      boolean any = false;
      for (StepState row : List.copyOf(latest.values())) {
        if (!row.isRunning() || !row.due()) {
          continue;
        }
        any = true;
        StepDefinition task = definition.stepNamed(row.stepName()).orElseThrow();
        boolean resend = task.onTimeout() == OnTimeout.Redispatch && row.dispatches() < task.maxDispatches()
            && (row.isCompensation() || !forwardFailed());
        end(row, StepStatus.TIMED_OUT, null, TIMEOUT, TIMEOUT, null, !resend);
        if (resend) {
          startTask(task, row.parent(), row.attempt() + 1, row.dispatches() + 1, row.isCompensation());
        }
      }
      return any;
    }

    void cancel(boolean compensate) {
      cancelRequested |= compensate;
      if (compensate && phase == Phase.COMPENSATION) {
        return; // already undoing: it ends CANCELLED instead of COMPENSATED
      }
      cancelInFlight("Cancelled");
      withdraw = true;
      if (!compensate) {
        finish(InstanceStatus.CANCELLED);
        return;
      }
      phase = Phase.COMPENSATION;
      compensate();
    }

    void retry() {
      if (phase == Phase.FORWARD) {
        for (StepDefinition t : definition.steps()) {
          StepState row = latest(t.name());
          if (row != null && (row.status().isFailure() || row.status() == StepStatus.CANCELLED)) {
            startTask(t, row.parent(), row.attempt() + 1, 1, false);
          }
        }
        walk();
        return;
      }
      for (StepDefinition t : definition.steps()) {
        StepState c = latest(StepState.compensationOf(t.name()));
        if (c != null && c.status() != StepStatus.SUCCEEDED && !c.isRunning()) {
          startTask(t, c.parent(), c.attempt() + 1, 1, true);
        }
      }
      compensate();
    }

    // --- starting and finishing ---

    void startTask(StepDefinition task, String parent, int attempt, int dispatches, boolean compensation) {
      String name = compensation ? StepState.compensationOf(task.name()) : task.name();
      UUID messageId = messageIds.get();
      StepState row = StepState.started(name, "task", parent, attempt, dispatches,
          compensation ? task.compensate() : task.action(), messageId, task.timeout());
      put(row);
      MergedInput in = mergedInput();
      dispatches().add(new Dispatch(row, task, compensation, in.input(), in.outputs()));
      currentStep = name;
      currentAttempt = attempt;
    }

    List<Dispatch> dispatches() {
      return dispatches;
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

    /**
     * Today's command input: the instance input with each earlier step's output object merged in, in definition
     * order (later wins); outputs that are not objects cannot be merged and travel by step name instead.
     */
    MergedInput mergedInput() {
      ObjectNode merged = state.input().deepCopy();
      ObjectNode rest = null;
      for (StepDefinition step : definition.steps()) {
        StepState row = latest(step.name());
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
      return new MergedInput(merged, rest);
    }
  }

  private record MergedInput(ObjectNode input, ObjectNode outputs) {}

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
