package dev.baton.runtime.core;

import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.workflow.Step;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Undoing: after a failure ({@code onFailure: Compensate}), a cancel that compensates, or a parent's
 * {@code Compensate}, the tasks that declare {@code compensate} and succeeded or may have taken effect are undone one
 * at a time, newest first by the order in which they ended (across branches); a child that succeeded is told to
 * compensate.
 */
final class Compensation {
  private final Draft d;

  Compensation(Draft draft) {
    this.d = draft;
  }

  /** Once nothing is left to await after a failure: {@code onFailure} applies. */
  void concludeFailure() {
    if (d.definition.onFailure() == OnFailure.Stop || compensable().isEmpty()) {
      d.finish(InstanceStatus.FAILED); // phase stays FORWARD: a retry sends the failed steps again
      return;
    }
    d.phase = Phase.COMPENSATION;
    undoNext();
  }

  /**
   * Whether undoing (or concluding a failure) must wait: a forward task may still take effect, and a child stopped in
   * flight is still undoing its own steps (newer than any completed here).
   */
  boolean mustWait() {
    return taskInFlight() || d.children.undoing();
  }

  private boolean taskInFlight() {
    for (StepState row : d.latest.values()) {
      if (row.isRunning() && row.kind().equals("task") && !row.isCompensation()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The tasks to undo, newest first by the order they ended (across branches): those that declare
   * {@code compensate} and succeeded or may have taken effect in any attempt (timed out, error, cancelled in flight).
   * A step whose every attempt was refused ({@code failed}) or is known not to have run (withdrawn unsent, expired at
   * the worker) is not undone.
   */
  private List<StepState> compensable() {
    List<StepState> rows = new ArrayList<>();
    for (StepState row : d.latest.values()) {
      if (row.kind().equals("task") && !row.isCompensation() && !row.isRunning()
          && d.byName.get(row.definitionName()) instanceof Step.Task t && t.isCompensable()
          && anyMayHaveTakenEffect(row.name())) {
        rows.add(row);
      } else if (row.kind().equals("workflow") && !row.isCompensation()
          && row.status() == StepStatus.SUCCEEDED) {
        rows.add(row); // a child that succeeded: its completed steps are undone (one that failed undid its own)
      }
    }
    rows.sort(Comparator.comparingInt(Draft::seqOf).reversed());
    return rows;
  }

  /**
   * Whether any attempt of the step may have taken effect, not only its last: an attempt that timed out may have
   * run, and a later one that expired, was withdrawn or was refused does not undo it.
   */
  private boolean anyMayHaveTakenEffect(String name) {
    Map<String, StepState> attempts = new LinkedHashMap<>();
    for (StepState r : d.state.steps()) {
      if (r.name().equals(name)) {
        attempts.put(name + "#" + r.attempt(), r);
      }
    }
    d.written.forEach((key, r) -> {
      if (r.name().equals(name)) {
        attempts.put(key, r);
      }
    });
    return attempts.values().stream().anyMatch(r -> !r.isRunning() && r.status().mayHaveTakenEffect()
        && !StateMachine.NOT_SENT.equals(r.errorCode()) && !StateMachine.EXPIRED.equals(r.errorCode()));
  }

  /**
   * The instance compensates: the newest compensable step not yet undone starts its compensation, or the one in
   * flight is awaited; when every one is undone, the instance ends COMPENSATED (CANCELLED after a cancel), and when
   * one failed, FAILED.
   */
  void undoNext() {
    d.status = InstanceStatus.COMPENSATING;
    if (mustWait()) {
      return; // undoing starts once they have answered, timed out or ended
    }
    for (StepState undone : compensable()) {
      StepState c = d.latest(StepState.compensationOf(undone.name()));
      if (undone.kind().equals("workflow")) {
        if (c == null) {
          // The child is told to compensate once this commits; the row ends when the child has.
          d.started(StepState.started(StepState.compensationOf(undone.name()), "workflow", undone.parent(), 1, 1,
              null, null, null));
          return;
        }
        if (c.isRunning() && !d.children.compensated(c)) {
          return;
        }
        c = d.latest(c.name());
        if (c.status() != StepStatus.SUCCEEDED) {
          d.finish(InstanceStatus.FAILED);
          return;
        }
        continue;
      }
      if (c == null) {
        d.tasks.start((Step.Task) d.byName.get(undone.definitionName()), undone.parent(), 1, 1, true,
            d.scopeOf(undone));
        if (!d.latest(StepState.compensationOf(undone.name())).isRunning()) {
          undoNext(); // it could not be sent (its mapping failed, or it is too large): a failed compensation
        }
        return;
      }
      if (c.isRunning()) {
        return;
      }
      if (c.status() != StepStatus.SUCCEEDED) {
        d.finish(InstanceStatus.FAILED); // a compensation failed: a retry sends it again
        return;
      }
    }
    d.finish(d.cancelRequested ? InstanceStatus.CANCELLED : InstanceStatus.COMPENSATED);
  }
}
