package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.runtime.engine.Decision.Change;
import dev.baton.runtime.engine.Decision.NoChange;
import dev.baton.runtime.engine.Move.Dispatch;
import dev.baton.runtime.engine.Move.Finish;

/**
 * The state machine of an instance (docs/design.md#runtime-semantics), pure: a definition, the locked state and a stimulus in, a
 * {@link Decision} out. No I/O, no clock, so every transition is tested in tables and the step loop, the timeout
 * poller and the API all move instances by the same rules.
 */
public final class Transitions {

  private Transitions() {}

  /** A new instance: the first step, attempt 1. */
  public static Decision start(WorkflowDefinition definition) {
    return new Change(null, new Dispatch(Phase.FORWARD, 0, 1, 1));
  }

  /** A worker's result for the execution in flight; anything else is stale (docs/design.md#runtime-semantics: check the state first). */
  public static Decision onResult(WorkflowDefinition definition, InstanceState state, StepResult result) {
    if (!state.status().isActive()) {
      return new NoChange("instance is " + state.status());
    }
    StepDefinition step = definition.step(state.stepIndex());
    if (!step.name().equals(result.step())) {
      return new NoChange("step '" + result.step() + "' is not in flight (in flight: '" + step.name() + "')");
    }
    String expectedAction = step.actionFor(state.phase());
    if (!expectedAction.equals(result.action())) {
      return new NoChange("action '" + result.action() + "' is not in flight (in flight: '" + expectedAction + "')");
    }
    if (result.attempt() != state.attempt()) {
      return new NoChange("attempt " + result.attempt() + " is stale (in flight: " + state.attempt() + ")");
    }
    return switch (result.result()) {
      case SUCCESS -> new Change(Outcome.succeeded(), afterSuccess(definition, state));
      case FAILED -> fail(definition, state, new Outcome(ExecutionStatus.FAILED, result.errorCode(), result.reason()));
      case ERROR -> fail(definition, state, new Outcome(ExecutionStatus.ERROR, result.errorCode(), result.reason()));
    };
  }

  /** The execution in flight passed its deadline: send it again if the step allows, else fail it. */
  public static Decision onTimeout(WorkflowDefinition definition, InstanceState state) {
    if (!state.status().isActive()) {
      return new NoChange("instance is " + state.status());
    }
    StepDefinition step = definition.step(state.stepIndex());
    if (step.onTimeout() == OnTimeout.Redispatch && state.dispatches() < step.maxDispatches()) {
      return new Change(Outcome.timedOut(),
          new Dispatch(state.phase(), state.stepIndex(), state.attempt() + 1, state.dispatches() + 1));
    }
    return fail(definition, state, Outcome.timedOut());
  }

  /** Stops an active instance; its execution in flight is cancelled and any late answer becomes stale. */
  public static Decision cancel(InstanceState state) {
    if (!state.status().isActive()) {
      return new NoChange("instance is " + state.status() + "; only RUNNING or COMPENSATING instances can be cancelled");
    }
    return new Change(Outcome.cancelled(), new Finish(InstanceStatus.CANCELLED));
  }

  /**
   * Retry-from-failed: sends the failed execution again as a new attempt, forward or compensation, and carries on
   * from there.
   */
  public static Decision retry(WorkflowDefinition definition, InstanceState state) {
    if (state.status() != InstanceStatus.FAILED) {
      return new NoChange("instance is " + state.status() + "; only FAILED instances can be retried");
    }
    return new Change(null, new Dispatch(state.phase(), state.stepIndex(), state.attempt() + 1, 1));
  }

  private static Move afterSuccess(WorkflowDefinition definition, InstanceState state) {
    int i = state.stepIndex();
    if (state.phase() == Phase.FORWARD) {
      return definition.isLast(i) ? new Finish(InstanceStatus.SUCCEEDED) : new Dispatch(Phase.FORWARD, i + 1, 1, 1);
    }
    int next = definition.previousCompensable(i);
    return next < 0 ? new Finish(InstanceStatus.COMPENSATED) : new Dispatch(Phase.COMPENSATION, next, 1, 1);
  }

  private static Decision fail(WorkflowDefinition definition, InstanceState state, Outcome outcome) {
    if (state.phase() == Phase.COMPENSATION || definition.onFailure() == OnFailure.Stop) {
      return new Change(outcome, new Finish(InstanceStatus.FAILED));
    }
    int first = definition.previousCompensable(state.stepIndex());
    Move next = first < 0 ? new Finish(InstanceStatus.FAILED) : new Dispatch(Phase.COMPENSATION, first, 1, 1);
    return new Change(outcome, next);
  }
}
