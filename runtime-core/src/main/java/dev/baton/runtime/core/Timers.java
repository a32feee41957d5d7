package dev.baton.runtime.core;

import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.contract.BatonDuration;
import dev.baton.workflow.Step;
import java.util.ArrayList;
import java.util.List;

/**
 * Deadlines: a step's (a task's answer, a wait's signal, a delay's end) and the whole instance's
 * ({@code spec.timeout}). A task that timed out is sent again when its step says {@code Redispatch} and has sends
 * left; otherwise a timeout is a failure of its step.
 */
final class Timers {
  private final Draft d;

  Timers(Draft draft) {
    this.d = draft;
  }

  /**
   * The steps in flight whose deadline has passed end: a task times out, a delay succeeds, a wait without its signal
   * times out.
   *
   * @return whether any step was due
   */
  boolean endDue() {
    boolean any = false;
    // The timeouts that may be sent again are decided last, once every failure among the due steps is known: a
    // re-send decided first would start a step in the very transaction that fails its group.
    List<StepState> resendable = new ArrayList<>();
    for (StepState row : List.copyOf(d.latest.values())) {
      if (!row.isRunning() || !row.due()) {
        continue;
      }
      any = true;
      Step step = d.byName.get(row.definitionName());
      if (step instanceof Step.Task task && mayBeSentAgain(task, row)) {
        resendable.add(row);
      } else if (step instanceof Step.Task task) {
        timedOut(row, task, StateMachine.TIMEOUT, StateMachine.TIMEOUT, null);
      } else if (step instanceof Step.Delay) {
        d.end(row, StepStatus.SUCCEEDED, null, null, null, null, false);
      } else { // a wait without its signal
        d.end(row, StepStatus.TIMED_OUT, null, StateMachine.TIMEOUT, StateMachine.TIMEOUT, null, true);
      }
    }
    for (StepState row : resendable) {
      timedOut(row, (Step.Task) d.byName.get(row.definitionName()), StateMachine.TIMEOUT, StateMachine.TIMEOUT,
          null);
    }
    return any;
  }

  /** Going forward past the instance's deadline: the instance times out, whatever the stimulus was. */
  boolean timesOutWhole() {
    return d.pastDeadline && d.phase == Phase.FORWARD;
  }

  /**
   * The whole instance ran past its deadline: every step in flight times out with it (reason
   * {@link StateMachine#TIMEOUT}, code {@link StateMachine#INSTANCE_TIMEOUT}), a failure, and nothing starts any more;
   * the walk then fails the groups around them and {@code onFailure} applies. A task in flight counts as a timed-out
   * attempt, so it is compensated when it declares {@code compensate}: its command's {@code baton-deadline} is never
   * later than the instance's, so no worker can start it any more and its compensation cannot overtake it. Its
   * command, if still unpublished, is withdrawn (the compensation this decision queues is not: the same statement).
   */
  void timeOutWhole() {
    String reason = deadlineReason();
    for (StepState row : List.copyOf(d.latest.values())) {
      if (row.isRunning() && !row.isGroup()) {
        d.end(row, StepStatus.TIMED_OUT, null, StateMachine.INSTANCE_TIMEOUT, reason, null, true);
        d.withdraw = true;
      }
    }
    d.halted = true;
  }

  String deadlineReason() {
    return StateMachine.TIMEOUT + ": the instance ran past its deadline (spec.timeout"
        + (d.definition.timeout() == null ? "" : " " + BatonDuration.ofMillis(d.definition.timeout().toMillis()))
        + ")";
  }

  private static boolean mayBeSentAgain(Step.Task task, StepState row) {
    return task.onTimeout() == OnTimeout.Redispatch && row.dispatches() < task.maxDispatches();
  }

  /**
   * A task attempt that is over without an answer: by its deadline, or by the worker's {@code expired}. It is sent
   * again (a new attempt, with a deadline of its own) when its step says {@code Redispatch} and has sends left, the
   * instance goes forward and nothing failed; otherwise it is a failure of its step.
   */
  void timedOut(StepState row, Step.Task task, String code, String reason, String messageId) {
    boolean forward = d.phase == Phase.FORWARD && !d.cancelRequested && !d.pastDeadline;
    boolean resend = mayBeSentAgain(task, row) && (row.isCompensation() || forward && !d.forwardFailed());
    d.end(row, StepStatus.TIMED_OUT, null, code, reason, messageId, !resend);
    if (resend) {
      d.tasks.start(task, row.parent(), row.attempt() + 1, row.dispatches() + 1, row.isCompensation(),
          d.scopeOf(row));
    }
  }
}
