package dev.baton.worker;

import dev.baton.contract.settings.SettingsReader;

/**
 * The SDK's own knobs in the environment (the operator sets none but the health port, for a WorkerService whose
 * spec.deployment.health asks for it; its pod template may set any): {@value #HANDLER_TIMEOUT},
 * {@value #MAX_RESULT_BYTES}, {@value #HANDLER_THREADS}, {@value #HEALTH_PORT} and {@value #METRICS_ENABLED}. Read with the worker's other variables by one
 * {@link SettingsReader}, so a malformed value is reported with every other bad variable, named after its variable.
 */
final class WorkerSettings {

  static final String HANDLER_TIMEOUT = "BATON_HANDLER_TIMEOUT";
  static final String MAX_RESULT_BYTES = "BATON_MAX_RESULT_BYTES";
  static final String HANDLER_THREADS = "BATON_HANDLER_THREADS";
  static final String HEALTH_PORT = dev.baton.contract.WorkerEnvironment.HEALTH_PORT;
  static final String METRICS_ENABLED = "BATON_METRICS_ENABLED";

  private WorkerSettings() {}

  /** The limits the environment sets; {@code fallback}'s where a variable is unset. */
  static HandlerLimits limits(SettingsReader r, HandlerLimits fallback) {
    return new HandlerLimits(r.duration(HANDLER_TIMEOUT, fallback.handlerTimeout()),
        r.integer(MAX_RESULT_BYTES, fallback.maxResultBytes(), 1, Integer.MAX_VALUE));
  }

  /** The port of the health endpoint; {@code fallback} (null: none) where unset, none for 0. */
  static Integer healthPort(SettingsReader r, Integer fallback) {
    Integer port = r.integer(HEALTH_PORT, fallback, 0, 65_535);
    return port != null && port == 0 ? null : port;
  }

  /** Whether the SDK keeps its own Prometheus registry; {@code fallback} where unset. */
  static boolean metricsEnabled(SettingsReader r, boolean fallback) {
    return r.bool(METRICS_ENABLED, fallback);
  }

  /** The most handlers that run at once; {@code fallback} (null: derived from the prefetch) where unset. */
  static Integer handlerThreads(SettingsReader r, Integer fallback) {
    return r.integer(HANDLER_THREADS, fallback, 1, Integer.MAX_VALUE);
  }
}
