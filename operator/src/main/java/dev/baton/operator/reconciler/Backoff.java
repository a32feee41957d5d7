package dev.baton.operator.reconciler;

import dev.baton.operator.broker.BrokerException;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Exponential backoff per resource for failures the reconcilers expect (an unreachable broker): 1 s, 2 s, 4 s ...
 * up to the resync period. Such failures are reported in the status and rescheduled, not thrown, so they neither
 * fill the log with stack traces nor exhaust JOSDK's retry budget.
 */
final class Backoff {

  private static final Logger LOG = LoggerFactory.getLogger(Backoff.class);
  private static final Duration FIRST = Duration.ofSeconds(1);

  private final Duration max;
  private final Map<ResourceID, Duration> delays = new ConcurrentHashMap<>();

  Backoff(Duration max) {
    this.max = max.compareTo(FIRST) < 0 ? FIRST : max;
  }

  /** The delay before the next attempt; doubles on every call until {@link #reset}. */
  Duration next(ResourceID id) {
    return delays.merge(id, FIRST, (previous, first) -> {
      Duration doubled = previous.multipliedBy(2);
      return doubled.compareTo(max) > 0 ? max : doubled;
    });
  }

  /** Logs a broker failure of {@code what} (one line, no stack trace) and returns the delay before trying again. */
  Duration after(BrokerException e, ResourceID id, String what) {
    Duration delay = next(id);
    LOG.warn("{} {}: {}; retrying in {}s", what, id, e.getMessage(), delay.toSeconds());
    return delay;
  }

  void reset(ResourceID id) {
    delays.remove(id);
  }
}
