package dev.baton.contract.topology;

import java.util.List;

/** What the orchestrator queue of one workflow depends on: the pure input of {@link TopologyPlanner#plan(WorkflowModel)}. */
public record WorkflowModel(String workflow, String entity, QueueType queueType, List<Step> steps) {

  public WorkflowModel {
    steps = List.copyOf(steps);
  }

  /**
   * A step: the service that runs it, the action its events carry and, if it has one, the compensating command (whose
   * events carry the command's name as action).
   */
  public record Step(String name, String service, String action, String compensateAction) {}
}
