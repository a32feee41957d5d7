package dev.baton.reliability.suite;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;

/** Waiting in the suite: a condition polled every 200 ms up to a bound, and a sleep whose interrupt is a failure. */
public final class Wait {

  private Wait() {}

  /** Waits until {@code condition} holds; false if it did not within {@code within}. */
  public static boolean until(Duration within, Supplier<Boolean> condition) {
    Instant until = Instant.now().plus(within);
    while (Instant.now().isBefore(until)) {
      if (condition.get()) {
        return true;
      }
      sleep(200);
    }
    return condition.get();
  }

  public static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
