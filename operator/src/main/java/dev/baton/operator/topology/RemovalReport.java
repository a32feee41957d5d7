package dev.baton.operator.topology;

import dev.baton.operator.broker.BrokerQueue;
import java.util.List;

/**
 * What {@link TopologySync#remove} deleted and what it kept.
 *
 * @param retained queues kept because they hold messages (deletion policy Retain), unbound, with the exchanges that
 *     route their messages back
 * @param retiring quorum queues unbound and found empty, deleted on a later pass (the removal is not complete)
 */
public record RemovalReport(List<String> deleted, List<BrokerQueue> retained, List<String> retiring) {

  public RemovalReport {
    deleted = List.copyOf(deleted);
    retained = List.copyOf(retained);
    retiring = List.copyOf(retiring);
  }

  /** Whether something is left to do on a later pass. */
  public boolean complete() {
    return retiring.isEmpty();
  }

  /** For the log: what went and what stayed. */
  public String describe() {
    return (deleted.isEmpty() ? "nothing deleted" : "deleted " + String.join(", ", deleted))
        + (retained.isEmpty() ? "" : "; kept (deletionPolicy Retain, they hold messages): "
            + String.join(", ", retained.stream().map(BrokerQueue::name).toList()))
        + (retiring.isEmpty() ? "" : "; empty quorum queues unbound, deleted shortly: " + String.join(", ", retiring));
  }
}
