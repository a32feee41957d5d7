package dev.baton.operator.status;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowStatus;
import dev.baton.operator.monitoring.KubeEvents;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.util.ArrayList;

/**
 * The one place that writes a Workflow's status. The instance counts (running, succeeded, ...) come from the runtime:
 * set when the findings bring them, otherwise carried over as they are (never erased while the runtime is away).
 */
public final class WorkflowStatusWriter {

  private final Clock clock;
  private final KubeEvents events;

  public WorkflowStatusWriter(Clock clock) {
    this(clock, KubeEvents.none());
  }

  /** @param events where a Warning goes when Ready turns False */
  public WorkflowStatusWriter(Clock clock, KubeEvents events) {
    this.clock = clock;
    this.events = events;
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
        .set(ConditionTypes.READY, f.ready())
        .toList()));
    ReadyEvents.onTransition(events, workflow, f.ready());
    return StatusPatch.ifChanged(workflow, status, Workflow::new);
  }

  public ErrorStatusUpdateControl<Workflow> failed(Workflow workflow, Exception e) {
    return ErrorStatus.of(workflow, e, WorkflowStatus.class, WorkflowStatus::new, Workflow::new, clock, events);
  }
}
