package dev.baton.operator.reconciler;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Exponential backoff per resource for failures the reconcilers expect (an unreachable broker): 1 s, 2 s, 4 s ...
 * up to the resync period. Such failures are reported in the status and rescheduled, not thrown, so they neither
 * fill the log with stack traces nor exhaust JOSDK's retry budget.
 */
final class Backoff {

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

  void reset(ResourceID id) {
    delays.remove(id);
  }
}
