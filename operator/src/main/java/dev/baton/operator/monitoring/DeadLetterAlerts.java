package dev.baton.operator.monitoring;

import dev.baton.api.v1alpha1.ConsumerStatus;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.operator.topology.SyncReport;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * docs/design.md#runtime-semantics "Alerts": dead letters raise a metric, an ERROR log line and a Kubernetes Event on the WorkerService;
 * its status counts them. The gauge follows every pass that looked at the broker; the log line and the Event come
 * only when a dead-letter queue holds more than the WorkerService's status last said, so each increase is told once.
 */
public final class DeadLetterAlerts {

  public static final String EVENT_REASON = "DeadLetters";
  private static final Logger LOG = LoggerFactory.getLogger(DeadLetterAlerts.class);

  private final KubeEvents events;
  private final OperatorMetrics metrics;

  public DeadLetterAlerts(KubeEvents events, OperatorMetrics metrics) {
    this.events = events;
    this.metrics = metrics;
  }

  /** After a pass that read the broker: {@code ws} still carries the status written before it. */
  public void observe(WorkerService ws, ServiceTopology plan, SyncReport report) {
    Map<String, Long> before = previousCounts(ws);
    for (ConsumerTopology consumer : plan.consumers()) {
      String queue = consumer.deadLetterQueue();
      long now = report.messages(queue);
      metrics.deadLetters(plan.service(), queue, now);
      long added = now - before.getOrDefault(queue, 0L);
      if (added > 0) {
        String message = added + " new dead letter(s) in " + queue;
        LOG.error("WorkerService {}: {} ({} in total): inspect them with 'baton dlq list --queue {}', then replay "
            + "them with 'baton dlq replay'", ResourceID.fromResource(ws), message, now, queue);
        events.warning(ws, EVENT_REASON, message);
      }
    }
    metrics.retainDeadLetterQueues(plan.service(),
        plan.consumers().stream().map(ConsumerTopology::deadLetterQueue).collect(Collectors.toSet()));
    // The live figures the status shows at most once per status interval, for dashboards and alerts.
    for (ConsumerTopology consumer : plan.consumers()) {
      metrics.consumerQueue(plan.service(), consumer.queue(), report.messages(consumer.queue()),
          report.consumers(consumer.queue()));
    }
    metrics.retainConsumerQueues(plan.service(),
        plan.consumers().stream().map(ConsumerTopology::queue).collect(Collectors.toSet()));
  }

  /** The service is gone (deleted or renamed): so are its gauges. */
  public void forget(String service) {
    metrics.retainDeadLetterQueues(service, Set.of());
    metrics.retainConsumerQueues(service, Set.of());
  }

  private static Map<String, Long> previousCounts(WorkerService ws) {
    Map<String, Long> counts = new HashMap<>();
    if (ws.getStatus() != null) {
      Stream.concat(ws.getStatus().getCommands().stream(), ws.getStatus().getSubscriptions().stream())
          .filter(c -> c.getDeadLetterQueue() != null)
          .forEach(c -> counts.put(c.getDeadLetterQueue(), deadLetters(c)));
    }
    return counts;
  }

  private static long deadLetters(ConsumerStatus c) {
    return c.getDeadLetters() == null ? 0 : c.getDeadLetters();
  }
}
