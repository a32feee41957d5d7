package dev.baton.worker;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.EventResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The {@link WorkerListener} that counts in Micrometer (an optional dependency of the SDK: add
 * {@code io.micrometer:micrometer-core}), by service and consumer (the command or subscription):
 *
 * <ul>
 *   <li>{@code baton_worker_handler_seconds{service,consumer,result}}: the handlers' time, a timer whose
 *       {@code _count} is the number handled, by result ({@code success}; {@code failed} for a command whose handler
 *       answered a business failure);
 *   <li>{@code baton_worker_retried_total}, {@code baton_worker_dead_lettered_total},
 *       {@code baton_worker_expired_total} (commands past their deadline, not run), {@code baton_worker_duplicates_total}
 *       (answered from the idempotency store) and {@code baton_worker_stuck_total} (handlers still running at twice
 *       their limit);
 *   <li>{@code baton_worker_in_flight{service}}: deliveries received and not yet settled, once {@link #inFlight} is
 *       given them ({@link BatonWorker.Builder#meterRegistry} does).
 * </ul>
 *
 * <p>{@link BatonWorker.Builder#meterRegistry} wires it; used alone it goes to {@link BatonWorker.Builder#listener}.
 */
public final class MicrometerWorkerListener implements WorkerListener {

  private final MeterRegistry registry;
  private final String service;
  private final Map<String, Timer> handled = new ConcurrentHashMap<>();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();

  public MicrometerWorkerListener(MeterRegistry registry, String service) {
    this.registry = registry;
    this.service = service;
  }

  /** Registers {@code baton_worker_in_flight}, read from {@code inFlight} at each scrape. */
  public MicrometerWorkerListener inFlight(IntSupplier inFlight) {
    Gauge.builder("baton.worker.in.flight", inFlight, IntSupplier::getAsInt)
        .description("Deliveries received and not yet settled (handler running, or its publishes awaiting confirms)")
        .tag("service", service)
        .strongReference(true) // Micrometer holds a gauge's object weakly: a method reference alone is collected
        .register(registry);
    return this;
  }

  @Override
  public void handled(String consumer, EventResult result, Duration took) {
    handled.computeIfAbsent(consumer + '\u0000' + result.key(), k -> Timer.builder("baton.worker.handler")
            .description("Handlers that returned, and their time, by result")
            .tags("service", service, "consumer", consumer, "result", result.key())
            .register(registry))
        .record(took);
  }

  @Override
  public void retried(String consumer, int retry, BatonDuration delay, Throwable failure) {
    count("baton.worker.retried", "Messages whose handler threw, sent to a retry tier", consumer);
  }

  @Override
  public void deadLettered(String consumer, String exceptionType, String reason) {
    count("baton.worker.dead.lettered", "Messages parked in their dead-letter queue (retries spent, or unprocessable)",
        consumer);
  }

  @Override
  public void duplicate(String consumer, String key) {
    count("baton.worker.duplicates", "Duplicate deliveries answered from the idempotency store", consumer);
  }

  @Override
  public void expired(String consumer, String messageId, Duration late) {
    count("baton.worker.expired", "Commands past their deadline, answered expired without running", consumer);
  }

  @Override
  public void stuck(String consumer, String messageId, Duration running) {
    count("baton.worker.stuck", "Handlers still running at twice their time limit (reported again as it doubles)",
        consumer);
  }

  private void count(String name, String description, String consumer) {
    counters.computeIfAbsent(name + '\u0000' + consumer, k -> Counter.builder(name).description(description)
        .tags("service", service, "consumer", consumer).register(registry)).increment();
  }
}
