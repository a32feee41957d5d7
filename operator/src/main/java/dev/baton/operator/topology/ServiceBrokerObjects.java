package dev.baton.operator.topology;

import dev.baton.contract.topology.QueueArguments;
import dev.baton.contract.topology.ServiceTopology;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

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

  /**
   * Deletes the queues of one command or subscription, messages and all: what a withdrawn grant allowed
   * (docs/design.md#tenancy). The rest of the service is untouched.
   */
  public RemovalReport withdraw(String service, String consumer) {
    return sync.remove(Ownership.ofConsumer(service, consumer), false);
  }

  /**
   * Unbinds the service's queues from the exchanges {@code refused} picks: events its namespace may no longer receive.
   *
   * @return what was unbound, for the log
   */
  public List<String> unbindFrom(String service, Predicate<String> refused) {
    return sync.unbind(Ownership.ofService(service), b -> refused.test(b.exchange()));
  }

  public RemovalReport remove(String service, boolean retainMessages) {
    return sync.remove(Ownership.ofService(service), retainMessages);
  }
}
