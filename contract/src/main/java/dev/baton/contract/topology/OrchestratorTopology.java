package dev.baton.contract.topology;

import java.util.List;

/** The queues and bindings through which one workflow's events reach the runtime. */
public record OrchestratorTopology(
    String workflow, QueueSpec queue, QueueSpec deadLetterQueue, List<BindingSpec> bindings) {

  public OrchestratorTopology {
    bindings = List.copyOf(bindings);
  }

  public List<QueueSpec> queues() {
    return List.of(queue, deadLetterQueue);
  }
}
