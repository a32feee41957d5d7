package dev.baton.runtime.core;

import dev.baton.runtime.core.Stimulus.Cancel;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** A cancel of an active instance: it ends CANCELLED at once, or once what it did is undone. */
final class Cancellation {
  private final Draft d;

  Cancellation(Draft draft) {
    this.d = draft;
  }

  /**
   * @param cancel with compensation or not, and the commands of the instance withdrawn unpublished (their tasks never
   *     reached a worker)
   */
  void cancel(Cancel cancel) {
    boolean compensate = cancel.compensate();
    Set<UUID> withdrawn = cancel.withdrawn();
    d.cancelRequested |= compensate;
    if (!cancel.stops(d.status, d.phase)) {
      return; // already undoing: it ends CANCELLED instead of COMPENSATED
    }
    d.withdraw = true;
    if (!compensate) {
      d.finish(InstanceStatus.CANCELLED);
      return;
    }
    // A task whose command may already be at a worker is awaited, its answer or its deadline, before any
    // compensation starts: undoing first could let its effect land afterwards, never to be undone. The others
    // (waits, delays, groups, tasks whose command was withdrawn unsent) stop now.
    for (StepState row : List.copyOf(d.latest.values())) {
      boolean task = row.kind().equals("task") && !row.isCompensation() && row.commandMessageId() != null;
      if (!row.isRunning() || task && !withdrawn.contains(row.commandMessageId())) {
        continue;
      }
      d.end(row, StepStatus.CANCELLED, null, task ? StateMachine.NOT_SENT : null,
          task ? "Cancelled before its command was sent: it never ran" : "Cancelled", null, false);
    }
    d.phase = Phase.COMPENSATION;
    d.compensation.undoNext();
  }
}
