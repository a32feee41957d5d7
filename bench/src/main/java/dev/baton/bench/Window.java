package dev.baton.bench;

import java.time.Instant;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * A measurement window of a closed loop: after a warm-up, how far the step and start counters moved, and what the
 * machine used meanwhile.
 */
record Window(Instant from, Instant to, double seconds, double steps, long starts, Resources.Usage usage) {

  static Window measure(int warmupSeconds, int seconds, DoubleSupplier steps, LongSupplier starts)
      throws InterruptedException {
    Thread.sleep(warmupSeconds * 1000L);
    Instant from = Instant.now();
    double steps0 = steps.getAsDouble();
    long starts0 = starts.getAsLong();
    Resources resources = Resources.start();
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    double window = (System.nanoTime() - t0) / 1e9;
    double steps1 = steps.getAsDouble();
    long starts1 = starts.getAsLong();
    Instant to = Instant.now();
    return new Window(from, to, window, steps1 - steps0, starts1 - starts0, resources.stop());
  }

  double stepsPerSecond() {
    return steps / seconds;
  }

  double startsPerSecond() {
    return starts / seconds;
  }
}
