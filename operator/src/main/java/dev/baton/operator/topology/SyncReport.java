package dev.baton.operator.topology;

import dev.baton.operator.broker.BrokerQueue;
import java.util.List;
import java.util.Map;

/**
 * What one pass of {@link TopologySync#apply} found and did.
 *
 * @param queues every desired queue as found on the broker (depth and consumers; zero when just declared)
 * @param mismatches objects left alone because an immutable property differs from the plan
 * @param draining queues no longer planned that still hold messages: kept, deleted once empty
 * @param actions what was changed, for the log (empty when the broker already matched)
 */
public record SyncReport(
    Map<String, BrokerQueue> queues, List<ImmutableMismatch> mismatches, List<BrokerQueue> draining,
    List<String> actions) {

  public SyncReport {
    queues = Map.copyOf(queues);
    mismatches = List.copyOf(mismatches);
    draining = List.copyOf(draining);
    actions = List.copyOf(actions);
  }

  /** Messages in a desired queue as last listed (0 when unknown: statistics not collected yet). */
  public long messages(String queue) {
    BrokerQueue q = queues.get(queue);
    return q == null ? 0 : q.depth();
  }

  /** Consumers of a desired queue as last listed (0 when unknown). */
  public int consumers(String queue) {
    BrokerQueue q = queues.get(queue);
    return q == null ? 0 : q.consumersShown();
  }
}
