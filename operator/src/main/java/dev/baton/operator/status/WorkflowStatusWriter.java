package dev.baton.operator.status;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowStatus;
import dev.baton.operator.monitoring.KubeEvents;
import dev.baton.operator.runtime.InstanceCounts;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;

/**
 * The one place that writes a Workflow's status. The instance counts (running, succeeded, ...) come from the runtime:
 * set when the findings bring them, otherwise carried over as they are (never erased while the runtime is away).
 */
public final class WorkflowStatusWriter {

  private final Clock clock;
  private final KubeEvents events;
  private final QuietStatus<WorkflowStatus> quiet;

  /** Writes new counts as soon as they come (for tests of the status itself). */
  public WorkflowStatusWriter(Clock clock) {
    this(clock, KubeEvents.none(), Duration.ZERO);
  }

  /**
   * @param events where a Warning goes when Ready turns False
   * @param statusInterval how often a change of the instance counts alone is written
   */
  public WorkflowStatusWriter(Clock clock, KubeEvents events, Duration statusInterval) {
    this.clock = clock;
    this.events = events;
    this.quiet = new QuietStatus<>(statusInterval, clock, WorkflowStatus.class, WorkflowStatus::new,
        (from, to) -> InstanceCounts.of(from).ifPresentOrElse(c -> c.applyTo(to), () -> InstanceCounts.clear(to)));
  }

  /** The resource is deleted. */
  public void forget(Workflow workflow) {
    quiet.forget(workflow);
  }

  public UpdateControl<Workflow> write(Workflow workflow, WorkflowFindings f) {
    WorkflowStatus status = StatusPatch.copy(workflow.getStatus(), WorkflowStatus.class, WorkflowStatus::new);
    status.setObservedGeneration(workflow.getMetadata().getGeneration());
    status.setSteps(workflow.getSpec() == null ? 0 : workflow.getSpec().getSteps().size());
    if (f.plan() != null) {
      status.setQueue(f.plan().queue().name());
      status.setDeadLetterQueue(f.plan().deadLetterQueue().name());
    }
    if (f.counts() != null) {
      f.counts().applyTo(status);
    }
    status.setConditions(new ArrayList<>(new Conditions(status.getConditions(), workflow.getMetadata().getGeneration(), clock)
        .set(ConditionTypes.TOPOLOGY_READY, f.ready())
        .ready(f.ready())
        .toList()));
    ReadyEvents.onTransition(events, workflow, f.ready());
    return StatusPatch.ifChanged(workflow, quiet.settle(workflow, workflow.getStatus(), status), Workflow::new);
  }

  /**
   * While the Workflow is being deleted and its finalizer waits (docs/design.md#runtime-semantics): Ready says why,
   * TopologyReady keeps what it said (the topology stays), the counts are the runtime's. JOSDK's cleanup returns no
   * status, so the patch is sent here, at once and only when something changed.
   */
  public void writeWhileDeleting(Workflow workflow, ConditionState ready, InstanceCounts counts,
      Context<Workflow> context) {
    WorkflowStatus status = StatusPatch.copy(workflow.getStatus(), WorkflowStatus.class, WorkflowStatus::new);
    if (counts != null) {
      counts.applyTo(status);
    }
    status.setConditions(new ArrayList<>(new Conditions(status.getConditions(), workflow.getMetadata().getGeneration(),
        clock).keep(ConditionTypes.TOPOLOGY_READY).ready(ready).toList()));
    ReadyEvents.onTransition(events, workflow, ready);
    StatusPatch.patchNow(workflow, quiet.settle(workflow, workflow.getStatus(), status), Workflow::new, context);
  }

  public ErrorStatusUpdateControl<Workflow> failed(Workflow workflow, Exception e) {
    return ErrorStatus.of(workflow, e, WorkflowStatus.class, WorkflowStatus::new, Workflow::new, clock, events);
  }
}
