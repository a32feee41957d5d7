package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.core.InstanceState.StoredSignal;
import dev.baton.runtime.core.Transition.Dispatch;
import dev.baton.runtime.core.Transition.Kind;
import dev.baton.runtime.core.Transition.LastError;
import dev.baton.runtime.core.Transition.SignalUse;
import dev.baton.workflow.Step;
import dev.baton.workflow.WorkflowDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;

/**
 * One decision in the making: the rows as they stand (the locked ones with this decision's rows over them) and the
 * {@link Transition} being built. The roles that decide ({@link Walk}, {@link MapIterations}, {@link ChildSteps},
 * {@link Compensation}, {@link Timers}, {@link TaskCommands}, {@link TaskInputs}, and {@link Cancellation} and
 * {@link Retries} for the stimuli of their names) all work on this one draft, each through its reference to it.
 */
final class Draft {
  final WorkflowDefinition definition;
  final InstanceState state;
  /** Every step of the definition, nested ones included, in declaration order. */
  final List<Step> all;
  final Map<String, Step> byName = new HashMap<>();
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

  final Walk walk = new Walk(this);
  final MapIterations iterations = new MapIterations(this);
  final ChildSteps children = new ChildSteps(this);
  final Compensation compensation = new Compensation(this);
  final Timers timers = new Timers(this);
  final TaskInputs inputs = new TaskInputs(this);
  final TaskCommands tasks;

  Draft(WorkflowDefinition definition, InstanceState state, CommandSettings commands) {
    this.definition = definition;
    this.state = state;
    this.all = definition.allSteps();
    index(definition.steps(), null);
    this.latest = StateMachine.latestByName(state.steps());
    this.signals = new LinkedList<>(state.signals());
    this.status = state.status();
    this.phase = state.phase();
    this.cancelRequested = state.cancelRequested();
    this.nextSeq = StateMachine.nextSeq(state.steps());
    this.pastDeadline = state.pastDeadline();
    this.tasks = new TaskCommands(this, commands);
  }

  private void index(List<Step> level, Step.Map map) {
    for (Step s : level) {
      byName.put(s.name(), s);
      if (map != null) {
        mapOf.put(s.name(), map);
      }
      index(s.children(), s instanceof Step.Map m ? m : map);
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

  void started(StepState row) {
    put(row);
    currentStep = row.name();
    currentAttempt = row.attempt();
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

  /** Whether a step going forward (one outside any map's iterations) has failed. */
  boolean forwardFailed() {
    for (Step step : all) {
      StepState row = latest(step.name());
      if (row != null && row.status().isFailure()) {
        return true;
      }
    }
    return false;
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

  /** The order in which a row ended; one still in flight comes after every ended one. */
  static int seqOf(StepState row) {
    return row.finishSeq() == null ? Integer.MAX_VALUE : row.finishSeq();
  }
}
