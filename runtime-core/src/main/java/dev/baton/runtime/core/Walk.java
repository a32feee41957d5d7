package dev.baton.runtime.core;

import dev.baton.runtime.core.InstanceState.StoredSignal;
import dev.baton.runtime.core.Transition.LastError;
import dev.baton.runtime.core.Transition.SignalUse;
import dev.baton.workflow.ExpressionException;
import dev.baton.workflow.Iteration;
import dev.baton.workflow.Step;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Going forward: the walk over the definition from the top, which starts what may start now and, once a step has
 * failed and nothing is left to await, ends in {@code onFailure} (the rules are {@link StateMachine}'s).
 */
final class Walk {
  private final Draft d;

  Walk(Draft draft) {
    this.d = draft;
  }

  void fromTop() {
    if (d.phase == Phase.COMPENSATION) {
      d.compensation.undoNext();
      return;
    }
    d.status = InstanceStatus.RUNNING;
    boolean deadline = d.timers.timesOutWhole();
    if (deadline) {
      d.timers.timeOutWhole();
    }
    d.halted |= d.forwardFailed();
    Progress p = advance(d.definition.steps(), null, Scope.TOP);
    // Past the deadline with every step done (the last answer came after it, before its timer): nothing was left
    // to time out, and the instance succeeded.
    if (p == Progress.DONE && (!d.halted || deadline && !d.forwardFailed())) {
      d.finish(InstanceStatus.SUCCEEDED);
      return;
    }
    if (!d.halted) {
      return; // waiting for steps in flight
    }
    // A failure: waits and delays have nothing to await; tasks in flight are awaited (or time out). A child instance
    // in flight is not awaited either: it is cancelled (with compensation when this instance compensates).
    for (StepState row : List.copyOf(d.latest.values())) {
      if (row.isRunning() && !row.isCompensation() && (row.kind().equals("wait") || row.kind().equals("delay")
          || row.kind().equals("workflow"))) {
        d.end(row, StepStatus.CANCELLED, null, null, "a step failed", null, false);
      }
    }
    if (d.compensation.mustWait()) {
      return;
    }
    for (StepState row : List.copyOf(d.latest.values())) {
      if (row.isRunning()) { // parallel and choice steps around the failure
        d.end(row, StepStatus.FAILED, null, null, "a step inside failed", null, false);
      }
    }
    if (deadline && d.lastError == null) { // nothing was in flight: the deadline itself is the failure
      d.lastError = new LastError(null, null, null, 0, StepStatus.TIMED_OUT, StateMachine.INSTANCE_TIMEOUT,
          d.timers.deadlineReason());
    }
    d.compensation.concludeFailure();
  }

  /** Starts what may start in a sequence; says whether it is done, waiting, or failed. */
  Progress advance(List<Step> sequence, String parent, Scope scope) {
    for (Step step : sequence) {
      StepState row = d.latest(scope.rowName(step));
      if (row == null) {
        if (d.halted) {
          return Progress.FAILED;
        }
        start(step, parent, 1, scope);
        row = d.latest(scope.rowName(step));
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
  private Progress inFlight(Step step, StepState row, Scope scope) {
    if (step instanceof Step.Map map) {
      return d.iterations.advance(map, row);
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
    if (step instanceof Step.Child && !d.halted) {
      return d.children.inFlight(row);
    }
    if (step instanceof Step.Wait wait && !d.halted) {
      for (Iterator<StoredSignal> it = d.signals.iterator(); it.hasNext(); ) {
        StoredSignal signal = it.next();
        if (signal.name().equals(wait.signal())) {
          it.remove();
          d.signalsUsed.add(new SignalUse(signal.id(), row.name()));
          d.end(row, StepStatus.SUCCEEDED, signal.body(), null, null, null, false);
          return Progress.DONE;
        }
      }
    }
    return Progress.WAITING;
  }

  private Progress groupDone(StepState row) {
    d.end(row, StepStatus.SUCCEEDED, null, null, null, null, false);
    return Progress.DONE;
  }

  private static List<Step> chosenSteps(Step.Choice choice, String chosen) {
    return StateMachine.OTHERWISE.equals(chosen) ? choice.otherwise()
        : choice.cases().get(Integer.parseInt(chosen)).steps();
  }

  /**
   * Starts a step (a new attempt of it); a choice is decided here, once, and a map's items evaluated here, once; an
   * expression that fails fails the step.
   */
  void start(Step step, String parent, int attempt, Scope scope) {
    String name = scope.rowName(step);
    if (step instanceof Step.Task task) {
      d.tasks.start(task, parent, attempt, 1, false, scope);
    } else if (step instanceof Step.Wait wait) {
      d.started(StepState.started(name, "wait", parent, attempt, 1, null, null, wait.timeout()));
    } else if (step instanceof Step.Delay delay) {
      d.started(StepState.started(name, "delay", parent, attempt, 1, null, null, delay.duration()));
    } else if (step instanceof Step.Parallel) {
      d.started(StepState.started(name, "parallel", parent, attempt, 1, null, null, null));
    } else if (step instanceof Step.Choice choice) {
      StepState row = StepState.started(name, "choice", parent, attempt, 1, null, null, null);
      d.started(row);
      try {
        d.put(row.choosing(choose(choice, scope)));
      } catch (ExpressionException e) {
        d.end(row, StepStatus.FAILED, null, StateMachine.EXPRESSION_ERROR, e.getMessage(), null, true);
      }
    } else if (step instanceof Step.Child child) {
      d.children.start(child, name, parent, attempt, scope);
    } else if (step instanceof Step.Map map) {
      d.iterations.start(map, name, parent, attempt);
    }
  }

  /** The case a choice takes: the first whose {@code when} holds over {@code {input, steps}}, else its otherwise. */
  private String choose(Step.Choice choice, Scope scope) {
    Map<String, Object> input = d.inputs.inputForExpressions();
    Map<String, Object> steps = d.inputs.stepsForExpressions(scope);
    Iteration iteration = d.inputs.iteration(scope);
    for (int i = 0; i < choice.cases().size(); i++) {
      if (choice.cases().get(i).when().test(input, steps, iteration)) {
        return Integer.toString(i);
      }
    }
    return StateMachine.OTHERWISE;
  }
}
