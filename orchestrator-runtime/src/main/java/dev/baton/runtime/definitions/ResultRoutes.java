package dev.baton.runtime.definitions;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.api.validation.Validated;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.workflow.WorkflowDefinition;
import dev.baton.workflow.WorkflowTranslator;
import java.util.List;

/**
 * The result routing keys of one revision of a Workflow: the bindings of {@code q.orchestrator.W} that the operator
 * would plan for that spec (contract's {@link TopologyPlanner}, so both sides compute them alike). The runtime
 * publishes them for every revision that still has unfinished instances ({@link RouteTable}), so the operator keeps
 * them bound after an edit renamed an action, moved a step or changed the entity. Pure.
 */
public final class ResultRoutes {

  private ResultRoutes() {}

  /** Every task's, nested ones included (the one parse of a Workflow, {@link WorkflowTranslator}); none if it fails. */
  public static List<BindingSpec> of(String namespace, String workflow, WorkflowSpec spec) {
    Validated<WorkflowDefinition> definition = WorkflowTranslator.translate(namespace, workflow, 0, spec);
    if (!definition.isValid()) {
      return List.of();
    }
    List<WorkflowModel.Step> steps = definition.value().tasks().stream()
        .map(t -> new WorkflowModel.Step(t.name(), t.service(), t.action(), t.compensate()))
        .toList();
    // The queue type does not change a binding.
    return TopologyPlanner.plan(new WorkflowModel(workflow, spec.getEntity(), QueueType.CLASSIC, steps)).bindings();
  }
}
