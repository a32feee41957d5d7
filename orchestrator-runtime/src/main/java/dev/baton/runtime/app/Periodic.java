package dev.baton.runtime.app;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's periodic tasks (timers, gauges, routes, retention, consumer reconciliation), supervised
 * (docs/design.md#runtime-semantics): a scheduled executor stops running a task for good the first time it throws,
 * silently, so each run catches whatever it throws, an {@link Error} included, logs it and leaves the next run due.
 */
final class Periodic {

  private static final Logger LOG = LoggerFactory.getLogger(Periodic.class);

  private Periodic() {}

  static ScheduledFuture<?> every(ScheduledExecutorService scheduler, Duration interval, Runnable task) {
    return scheduler.scheduleWithFixedDelay(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.warn("Periodic task failed: {}", e.toString());
      } catch (Error e) {
        LOG.error("Periodic task failed on an Error; it runs again at its next interval", e);
      }
    }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
  }
}
