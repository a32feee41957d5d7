package dev.baton.operator.topology;

import dev.baton.operator.broker.BrokerQueue;
import java.util.List;

/**
 * What {@link TopologySync#remove} deleted and what it kept.
 *
 * @param retained queues kept because they hold messages (deletion policy Retain), with the exchanges that route
 *     their messages back
 */
public record RemovalReport(List<String> deleted, List<BrokerQueue> retained) {

  public RemovalReport {
    deleted = List.copyOf(deleted);
    retained = List.copyOf(retained);
  }

  /** For the log: what went and what stayed. */
  public String describe() {
    return (deleted.isEmpty() ? "nothing deleted" : "deleted " + String.join(", ", deleted))
        + (retained.isEmpty() ? "" : "; kept (deletionPolicy Retain, they hold messages): "
            + String.join(", ", retained.stream().map(BrokerQueue::name).toList()));
  }
}
