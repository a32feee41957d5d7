package dev.baton.operator.topology;

import dev.baton.contract.topology.QueueArguments;
import dev.baton.contract.topology.ServiceTopology;
import java.util.Map;

/** The declare/remove pair of a WorkerService's exchanges, queues and bindings, on top of {@link TopologySync}. */
public final class ServiceBrokerObjects {

  /** The spec field behind each queue argument, for {@link ImmutableMismatch#advice}. */
  public static final Map<String, String> SPEC_FIELDS = Map.of(QueueArguments.QUEUE_TYPE, "spec.queue.type");

  private final TopologySync sync;

  public ServiceBrokerObjects(TopologySync sync) {
    this.sync = sync;
  }

  public SyncReport declare(ServiceTopology topology) {
    return sync.apply(DesiredTopology.of(topology), Ownership.ofService(topology.service()));
  }

  public RemovalReport remove(String service, boolean retainMessages) {
    return sync.remove(Ownership.ofService(service), retainMessages);
  }
}
