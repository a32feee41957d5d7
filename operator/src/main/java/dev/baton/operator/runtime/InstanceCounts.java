package dev.baton.operator.runtime;

import dev.baton.api.v1alpha1.WorkflowStatus;
import java.util.Optional;

/**
 * A Workflow's instances by outcome, as the runtime counts them ({@code running} = RUNNING + COMPENSATING). Shown by
 * {@code kubectl get workflows}; informational only, they never change a condition.
 */
public record InstanceCounts(long running, long succeeded, long failed, long compensated, long cancelled) {

  /** What a Workflow the runtime did not mention has. */
  public static final InstanceCounts NONE = new InstanceCounts(0, 0, 0, 0, 0);

  /** The counts a status shows, empty when it shows none (or only some). */
  public static Optional<InstanceCounts> of(WorkflowStatus status) {
    if (status == null || status.getRunning() == null || status.getSucceeded() == null || status.getFailed() == null
        || status.getCompensated() == null || status.getCancelled() == null) {
      return Optional.empty();
    }
    return Optional.of(new InstanceCounts(status.getRunning(), status.getSucceeded(), status.getFailed(),
        status.getCompensated(), status.getCancelled()));
  }

  /** A status that shows no counts (none known yet). */
  public static void clear(WorkflowStatus status) {
    status.setRunning(null);
    status.setSucceeded(null);
    status.setFailed(null);
    status.setCompensated(null);
    status.setCancelled(null);
  }

  public void applyTo(WorkflowStatus status) {
    status.setRunning(running);
    status.setSucceeded(succeeded);
    status.setFailed(failed);
    status.setCompensated(compensated);
    status.setCancelled(cancelled);
  }
}
