package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.workflow.ExpressionException;
import dev.baton.workflow.Step;

/**
 * Child workflow steps (kind {@code workflow}): the engine starts the child in the same transaction as the row, and
 * the step ends with it; undoing a child that succeeded tells it to compensate, and ends when it has.
 */
final class ChildSteps {
  private final Draft d;

  ChildSteps(Draft draft) {
    this.d = draft;
  }

  /** Starts a child step: its input (mapped, or merged as a task's) goes to the engine with the row. */
  void start(Step.Child child, String name, String parent, int attempt, Scope scope) {
    StepState row = StepState.started(name, "workflow", parent, attempt, 1, null, null, child.timeout());
    d.started(row);
    JsonNode input;
    try {
      input = child.input().isEmpty() ? d.inputs.mergedInput(scope).input() : d.inputs.mapped(child.input(), scope);
    } catch (ExpressionException e) {
      d.end(row, StepStatus.FAILED, null, StateMachine.EXPRESSION_ERROR, e.getMessage(), null, true);
      return;
    }
    d.childStarts.add(new Transition.ChildStart(row, child.workflow(), input));
  }

  /** A child workflow step ends with its child: SUCCEEDED with the child's outputs, else failed with its reason. */
  Progress inFlight(StepState row) {
    InstanceState.ChildState child = d.state.children().get(row.name());
    if (child == null || child.forAttempt() < row.attempt() || child.status().isActive()) {
      return Progress.WAITING;
    }
    if (child.status() == InstanceStatus.SUCCEEDED) {
      d.end(row, StepStatus.SUCCEEDED, child.outputs(), null, null, null, false);
      return Progress.DONE;
    }
    d.end(row, StepStatus.FAILED, null, StateMachine.CHILD_FAILED, "child instance " + child.id() + " ended "
        + child.status() + (child.reason() == null ? "" : ": " + child.reason()), null, true);
    return Progress.FAILED;
  }

  /**
   * Whether a child instance whose step ended otherwise than by it (a failure elsewhere, a timeout, a cancel) is
   * still going: the engine cancels it after the commit, and it undoes its own completed steps, which are newer than
   * this instance's completed ones.
   */
  boolean undoing() {
    for (StepState row : d.latest.values()) {
      if (row.kind().equals("workflow") && !row.isCompensation() && !row.isRunning()
          && row.status() != StepStatus.SUCCEEDED) {
        InstanceState.ChildState child = d.state.children().get(row.name());
        if (child != null && child.status().isActive()) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * A child's compensation in flight: ends SUCCEEDED once the child is COMPENSATED (or CANCELLED, which undid it),
   * FAILED when its compensation failed; otherwise it goes on.
   *
   * @return whether it ended
   */
  boolean compensated(StepState compensation) {
    InstanceState.ChildState child = d.state.children().get(compensation.stepName());
    if (child == null || child.status().isActive() || child.status() == InstanceStatus.SUCCEEDED) {
      return false;
    }
    boolean undone = child.status() == InstanceStatus.COMPENSATED || child.status() == InstanceStatus.CANCELLED;
    d.end(compensation, undone ? StepStatus.SUCCEEDED : StepStatus.FAILED, null,
        undone ? null : StateMachine.CHILD_FAILED, undone ? null : "child instance " + child.id() + " ended "
            + child.status() + " while compensating" + (child.reason() == null ? "" : ": " + child.reason()), null,
        !undone);
    return true;
  }
}
