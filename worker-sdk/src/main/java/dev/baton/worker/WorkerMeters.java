package dev.baton.worker;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.function.IntSupplier;

/**
 * The worker's meters, when asked for: in the application's registry, or in one of the SDK's own (Prometheus).
 * Micrometer is an optional dependency: only this class and {@link MicrometerWorkerListener} touch it, and only when
 * metrics are on, so that a worker without them runs without Micrometer; the Prometheus registry, optional too, is
 * touched in {@link Prometheus} alone, and only when it is on the class path.
 */
final class WorkerMeters {

  private static final String PROMETHEUS_CLASS = "io.micrometer.prometheusmetrics.PrometheusMeterRegistry";
  private static final boolean PROMETHEUS_PRESENT = present(PROMETHEUS_CLASS);

  private final MeterRegistry registry;
  private final MicrometerWorkerListener listener;

  private WorkerMeters(MeterRegistry registry, MicrometerWorkerListener listener) {
    this.registry = registry;
    this.listener = listener;
  }

  /**
   * @param given the application's registry, or null for the SDK's own Prometheus registry
   * @throws IllegalStateException when the SDK's own registry is asked for without its library on the class path
   */
  static WorkerMeters of(MeterRegistry given, String service, IntSupplier inFlight) {
    if (given == null && !PROMETHEUS_PRESENT) {
      throw new IllegalStateException("Prometheus metrics (prometheusMetrics(), " + WorkerSettings.METRICS_ENABLED
          + ") need io.micrometer:micrometer-registry-prometheus on the class path");
    }
    MeterRegistry registry = given != null ? given : Prometheus.newRegistry();
    return new WorkerMeters(registry, new MicrometerWorkerListener(registry, service).inFlight(inFlight));
  }

  WorkerListener listener() {
    return listener;
  }

  /**
   * The Prometheus text of the registry (of the first Prometheus registry in a composite one), or null when it holds
   * none: its meters then go where the application sends them, not to {@code /metrics}.
   */
  String scrape() {
    return PROMETHEUS_PRESENT ? Prometheus.scrape(registry) : null;
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, WorkerMeters.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Loaded only when the Prometheus registry is on the class path. */
  private static final class Prometheus {

    static MeterRegistry newRegistry() {
      return new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    }

    static String scrape(MeterRegistry registry) {
      if (registry instanceof PrometheusMeterRegistry p) {
        return p.scrape();
      }
      if (registry instanceof CompositeMeterRegistry composite) {
        for (MeterRegistry member : composite.getRegistries()) {
          String text = scrape(member);
          if (text != null) {
            return text;
          }
        }
      }
      return null;
    }
  }
}
