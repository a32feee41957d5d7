package dev.baton.operator.monitoring;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The operator's meters, in Prometheus text at {@code /metrics}: JOSDK's reconciliation metrics (without per-resource
 * tags, to keep cardinality bounded), the JVM's memory, GC pauses, threads and classes, CPU and uptime,
 * {@code baton_dead_letters{service,queue}}, and the live figures of the command and subscription queues that statuses
 * show at most once a minute,
 * {@code baton_queue_messages{service,queue}} and {@code baton_queue_consumers{service,queue}}, and
 * {@code baton_operator_leader} (1 on the leader, 0 on a candidate).
 */
public final class OperatorMetrics {

  public static final String DEAD_LETTERS = "baton.dead.letters";
  public static final String QUEUE_MESSAGES = "baton.queue.messages";
  public static final String QUEUE_CONSUMERS = "baton.queue.consumers";
  public static final String LEADER = "baton.operator.leader";

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Metrics josdk = MicrometerMetrics.newMicrometerMetricsBuilder(registry)
      .notCollectingMetricsPerResource()
      .build();
  private final QueueGauges deadLetters = new QueueGauges(DEAD_LETTERS,
      "Messages parked in a dead-letter queue q.dlx.S.C, each waiting for a person (baton dlq)");
  private final QueueGauges queueMessages = new QueueGauges(QUEUE_MESSAGES,
      "Messages in a command or subscription queue q.S.C, ready and unacknowledged, as of the operator's last listing");
  private final QueueGauges queueConsumers = new QueueGauges(QUEUE_CONSUMERS,
      "Consumers of a command or subscription queue q.S.C, as of the operator's last listing");
  private volatile boolean leading;

  @SuppressWarnings("resource") // JvmGcMetrics listens to the GC for the life of the process, as the registry does
  public OperatorMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry); // the JVM's own pauses, as the runtime's: the dashboard's GC panel
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
    Gauge.builder(LEADER, this, m -> m.leading ? 1 : 0)
        .description("1 on the replica that leads (reconciles), 0 on a candidate waiting for the Lease")
        .register(registry);
  }

  /** This replica leads now (or runs without leader election). */
  public void leading() {
    leading = true;
  }

  /** For JOSDK's configuration ({@code withMetrics}). */
  public Metrics josdk() {
    return josdk;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** Prometheus text format. */
  public String scrape() {
    return registry.scrape();
  }

  /** Messages now parked in a service's dead-letter queue. */
  public void deadLetters(String service, String queue, long count) {
    deadLetters.set(service, queue, count);
  }

  /** Drops the gauges of a service's dead-letter queues other than {@code keep} (all of them for an empty set). */
  public void retainDeadLetterQueues(String service, Set<String> keep) {
    deadLetters.retain(service, keep);
  }

  /** Messages and consumers of a service's command or subscription queue. */
  public void consumerQueue(String service, String queue, long messages, long consumers) {
    queueMessages.set(service, queue, messages);
    queueConsumers.set(service, queue, consumers);
  }

  /** Drops the gauges of a service's command and subscription queues other than {@code keep}. */
  public void retainConsumerQueues(String service, Set<String> keep) {
    queueMessages.retain(service, keep);
    queueConsumers.retain(service, keep);
  }

  /** One gauge per (service, queue) of one metric, by service: a pass touches only its own service's gauges. */
  private final class QueueGauges {
    private record Entry(AtomicLong value, Gauge gauge) {}

    private final String name;
    private final String description;
    private final Map<String, Map<String, Entry>> gauges = new ConcurrentHashMap<>();

    QueueGauges(String name, String description) {
      this.name = name;
      this.description = description;
    }

    void set(String service, String queue, long value) {
      gauges.computeIfAbsent(service, s -> new ConcurrentHashMap<>()).computeIfAbsent(queue, q -> {
        AtomicLong v = new AtomicLong();
        return new Entry(v, Gauge.builder(name, v, AtomicLong::get).description(description)
            .tags("service", service, "queue", queue).register(registry));
      }).value().set(value);
    }

    void retain(String service, Set<String> keep) {
      Map<String, Entry> ofService = gauges.get(service);
      if (ofService == null) {
        return;
      }
      ofService.entrySet().removeIf(e -> {
        boolean drop = !keep.contains(e.getKey());
        if (drop) {
          registry.remove(e.getValue().gauge());
        }
        return drop;
      });
      if (keep.isEmpty()) {
        gauges.remove(service, Map.of()); // an empty map equals Map.of(): gone unless a pass set one meanwhile
      }
    }
  }
}
