package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.workflow.WorkflowSpecs;
import java.util.List;

/**
 * The result routing keys of one revision of a Workflow: the bindings of {@code q.orchestrator.W} that the operator
 * would plan for that spec (contract's {@link TopologyPlanner}, so both sides compute them alike). The runtime
 * publishes them for every revision that still has unfinished instances ({@link RouteTable}), so the operator keeps
 * them bound after an edit renamed an action, moved a step or changed the entity. Pure.
 */
public final class ResultRoutes {

  private ResultRoutes() {}

  public static List<BindingSpec> of(String workflow, WorkflowSpec spec) {
    List<WorkflowModel.Step> steps = WorkflowSpecs.resultSources(spec);   // every task, nested ones included
    // The queue type does not change a binding.
    return TopologyPlanner.plan(new WorkflowModel(workflow, spec.getEntity(), QueueType.CLASSIC, steps)).bindings();
  }
}
