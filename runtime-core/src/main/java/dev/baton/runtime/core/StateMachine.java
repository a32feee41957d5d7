package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.Bounds;
import dev.baton.runtime.core.Stimulus.Cancel;
import dev.baton.runtime.core.Stimulus.Result;
import dev.baton.runtime.core.Stimulus.Retry;
import dev.baton.runtime.core.Stimulus.SignalStored;
import dev.baton.runtime.core.Stimulus.Start;
import dev.baton.runtime.core.Stimulus.TimersDue;
import dev.baton.runtime.core.Transition.Kind;
import dev.baton.runtime.core.Transition.LastError;
import dev.baton.workflow.IterationNames;
import dev.baton.workflow.Step;
import dev.baton.workflow.WorkflowDefinition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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

  private final CommandSettings commands;

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
    this.commands = new CommandSettings(messageIds, maxCommandBytes, brokerCommandBytes);
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
      Draft d = draft(definition, state);
      d.pastDeadline = false; // a retry's deadline counts again from the retry (the engine writes it)
      new Retries(d).retryFailed();
      return d.transition();
    }
    if (stimulus instanceof Stimulus.Compensate) {
      if (state.status() != InstanceStatus.SUCCEEDED) {
        return Transition.nothing(Kind.REFUSED, "instance is " + state.status()
            + "; only a SUCCEEDED instance is compensated after it ended", state);
      }
      Draft d = draft(definition, state);
      d.phase = Phase.COMPENSATION;
      d.compensation.undoNext();
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
      Draft d = draft(definition, state);
      d.end(row, StepStatus.FAILED, null, CHILD_UNAVAILABLE, r.reason(), null, true);
      d.walk.fromTop();
      return d.transition();
    }
    if (stimulus instanceof Stimulus.Abandon a) {
      return abandon(state, a.errorCode(), a.reason());
    }
    if (stimulus instanceof Stimulus.Refused r) {
      return onRefused(definition, state, r);
    }
    Draft d = draft(definition, state);
    if (stimulus instanceof Start) {
      d.walk.fromTop();
    } else if (stimulus instanceof Stimulus.InstanceTimedOut) {
      if (state.phase() != Phase.FORWARD) {
        return Transition.nothing(Kind.STALE, "instance is " + state.status() + ": past its deadline, its"
            + " compensation still finishes", state);
      }
      d.pastDeadline = true;
      d.walk.fromTop();
    } else if (stimulus instanceof TimersDue) {
      // Past the instance's deadline, the steps due time out with the instance (none is sent again).
      if (!d.timers.timesOutWhole() && !d.timers.endDue()) {
        return Transition.nothing(Kind.STALE, "no step in flight is due", state);
      }
      d.walk.fromTop();
    } else if (stimulus instanceof SignalStored || stimulus instanceof Stimulus.ChildrenChanged) {
      d.walk.fromTop();
    } else {
      throw new IllegalArgumentException("unknown stimulus " + stimulus);
    }
    return d.transition();
  }

  private Draft draft(WorkflowDefinition definition, InstanceState state) {
    return new Draft(definition, state, commands);
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
    Draft d = draft(definition, state);
    switch (e.result()) {
      case SUCCESS -> d.end(row, StepStatus.SUCCEEDED, e.output(), null, null, e.messageId(), false);
      case FAILED -> d.end(row, StepStatus.FAILED, null, e.errorCode(), e.reason(), e.messageId(), true);
      case ERROR -> d.end(row, StepStatus.ERROR, null, e.errorCode(), e.reason(), e.messageId(), true);
      // Not executed: the worker got the command after its deadline and did not start it. The attempt is over as if
      // it had timed out (the runtime's own timer was about to say so), with the worker's reason.
      case EXPIRED -> d.timers.timedOut(row, task, EXPIRED, e.reason(), e.messageId());
    }
    d.walk.fromTop();
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
    Draft d = draft(definition, state);
    d.end(row, StepStatus.FAILED, null, refused.errorCode(), refused.reason(), null, true);
    d.walk.fromTop();
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
    Draft d = draft(definition, state);
    new Cancellation(d).cancel(cancel);
    return d.transition();
  }

  /** The latest attempt of each step (and of each compensation), by name, in the order they first started. */
  static Map<String, StepState> latestByName(List<StepState> rows) {
    Map<String, StepState> latest = new LinkedHashMap<>();
    for (StepState row : rows) {
      latest.merge(row.name(), row, (a, b) -> b.attempt() >= a.attempt() ? b : a);
    }
    return latest;
  }

  /** The finish order the next row to end takes: after every row that has ended. */
  static int nextSeq(List<StepState> rows) {
    int max = 0;
    for (StepState row : rows) {
      if (row.finishSeq() != null) {
        max = Math.max(max, row.finishSeq());
      }
    }
    return max + 1;
  }
}
