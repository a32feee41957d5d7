package dev.baton.operator.topology;

import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.contract.topology.QueueArguments;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** The declare/remove pair of a Workflow's orchestrator queues and bindings, on top of {@link TopologySync}. */
public final class WorkflowBrokerObjects {

  /** The spec field behind each queue argument, for {@link ImmutableMismatch#advice}. */
  public static final Map<String, String> SPEC_FIELDS = Map.of(QueueArguments.QUEUE_TYPE, "spec.queueType");

  private final TopologySync sync;

  public WorkflowBrokerObjects(TopologySync sync) {
    this.sync = sync;
  }

  public SyncReport declare(OrchestratorTopology topology) {
    return declare(topology, true);
  }

  /** @param unbindUnplanned see {@link TopologySync#apply(DesiredTopology, Ownership, boolean)} */
  public SyncReport declare(OrchestratorTopology topology, boolean unbindUnplanned) {
    return sync.apply(DesiredTopology.of(topology), Ownership.ofWorkflow(topology.workflow()), unbindUnplanned);
  }

  /**
   * Unbinds the Workflow's queues from the exchanges {@code refused} picks: event exchanges of services it may not command
   * (docs/design.md#tenancy).
   *
   * @return what was unbound, for the log
   */
  public List<String> withdraw(String workflow, Predicate<String> refused) {
    return sync.unbind(Ownership.ofWorkflow(workflow), b -> refused.test(b.exchange()));
  }

  public RemovalReport remove(String workflow, boolean retainMessages) {
    return sync.remove(Ownership.ofWorkflow(workflow), retainMessages);
  }
}
