package dev.baton.operator.status;

import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.operator.runtime.InstanceCounts;
import dev.baton.operator.topology.SyncReport;

/**
 * What one reconciliation of a Workflow found and did: the input of its status writer.
 *
 * @param ready whether its references resolve and its queues and bindings are in place, and if not why
 * @param plan the planned queues and bindings, null when the spec could not be planned
 * @param report what the broker holds, null when the broker was not reached or not touched
 * @param counts its instances as the runtime last counted them, null when not known (the status keeps its own)
 */
public record WorkflowFindings(ConditionState ready, OrchestratorTopology plan, SyncReport report, InstanceCounts counts) {

  public WorkflowFindings(ConditionState ready, OrchestratorTopology plan, SyncReport report) {
    this(ready, plan, report, null);
  }

  public WorkflowFindings withCounts(InstanceCounts counts) {
    return new WorkflowFindings(ready, plan, report, counts);
  }
}
