package dev.baton.operator.monitoring;

import io.javaoperatorsdk.operator.api.monitoring.Metrics;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The operator's meters, in Prometheus text at {@code /metrics}: JOSDK's reconciliation metrics (without per-resource
 * tags, to keep cardinality bounded), JVM basics, and {@code baton_dead_letters{service,queue}}.
 */
public final class OperatorMetrics {

  public static final String DEAD_LETTERS = "baton.dead.letters";

  private record DeadLetterGauge(AtomicLong value, Gauge gauge) {}

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Metrics josdk = MicrometerMetrics.newMicrometerMetricsBuilder(registry)
      .notCollectingMetricsPerResource()
      .build();
  private final Map<List<String>, DeadLetterGauge> deadLetters = new ConcurrentHashMap<>();

  public OperatorMetrics() {
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    new UptimeMetrics().bindTo(registry);
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
    deadLetters.computeIfAbsent(List.of(service, queue), key -> {
      AtomicLong value = new AtomicLong();
      Gauge gauge = Gauge.builder(DEAD_LETTERS, value, AtomicLong::get)
          .description("Messages parked in a dead-letter queue q.dlx.S.C, each waiting for a person (baton dlq)")
          .tags("service", service, "queue", queue)
          .register(registry);
      return new DeadLetterGauge(value, gauge);
    }).value().set(count);
  }

  /** Drops the gauges of a service's dead-letter queues other than {@code keep} (all of them for an empty set). */
  public void retainDeadLetterQueues(String service, Set<String> keep) {
    deadLetters.entrySet().removeIf(e -> {
      boolean drop = e.getKey().get(0).equals(service) && !keep.contains(e.getKey().get(1));
      if (drop) {
        registry.remove(e.getValue().gauge());
      }
      return drop;
    });
  }
}
