package dev.baton.bench;

import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;

/**
 * An open loop: starts at a fixed rate whatever the system does, each handed to one of the load generator's threads
 * when it is due. Baton's fixed-rate points (half load, light load) and the ceiling's at the same rates run on it.
 * Measured: the window after {@code warmupSeconds}, as {@link Instant}s (for the database's rows) and
 * {@link System#nanoTime} (for the ceiling's clock).
 *
 * @param started the starts due in the window that succeeded (those under way when it closed included)
 * @param steps how far the steps-applied counter moved during the window
 * @param maxStartLagMs the longest a start due in the window waited for a free thread
 */
record OpenLoop(Instant from, Instant to, long fromNanos, long toNanos, long started, double steps,
    double maxStartLagMs, Resources.Usage usage) {

  /**
   * Runs {@code warmupSeconds} then {@code seconds} at {@code rate} starts per second on {@code threads} threads, and
   * returns once every start is answered.
   */
  static OpenLoop run(double rate, int warmupSeconds, int seconds, int threads, DoubleSupplier stepsApplied,
      BooleanSupplier start) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    AtomicLong started = new AtomicLong();
    AtomicLong maxLagNanos = new AtomicLong();
    long period = (long) (1e9 / rate);
    long t0 = System.nanoTime();
    long open = t0 + TimeUnit.SECONDS.toNanos(warmupSeconds);
    long end = open + TimeUnit.SECONDS.toNanos(seconds);
    Instant from = null;
    Resources resources = null;
    double steps0 = 0;
    for (long k = 0; ; k++) {
      long due = t0 + k * period;
      if (due >= end) {
        break;
      }
      long wait = due - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      boolean measured = due >= open;
      if (measured && resources == null) {
        from = Instant.now();
        steps0 = stepsApplied.getAsDouble();
        resources = Resources.start();
      }
      pool.submit(() -> {
        if (!measured) {
          start.getAsBoolean();
          return;
        }
        maxLagNanos.accumulateAndGet(System.nanoTime() - due, Math::max);
        if (start.getAsBoolean()) {
          started.incrementAndGet();
        }
      });
    }
    if (resources == null) { // an empty window
      from = Instant.now();
      steps0 = stepsApplied.getAsDouble();
      resources = Resources.start();
    }
    long toNanos = System.nanoTime();
    double steps1 = stepsApplied.getAsDouble();
    Instant to = Instant.now();
    Resources.Usage usage = resources.stop();
    pool.shutdown();
    pool.awaitTermination(2, TimeUnit.MINUTES);
    return new OpenLoop(from, to, open, toNanos, started.get(), steps1 - steps0, maxLagNanos.get() / 1e6, usage);
  }

  double seconds() {
    return (toNanos - fromNanos) / 1e9;
  }

  double startsPerSecond() {
    return started / seconds();
  }

  double stepsPerSecond() {
    return steps / seconds();
  }
}
