package dev.baton.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;

/**
 * A closed loop running until closed: {@code inFlight} instances kept running, each finished one replaced by a new
 * start from one of the load generator's threads. The threads block on a free place; one pacer thread watches how many
 * instances have finished (every millisecond) and frees their places. Before, every load-generator thread polled the
 * finished count itself each millisecond: 32 threads waking a thousand times a second took a third of a core of the
 * machine under test. Baton's sustained loop and the ceiling's with starts both run on it, with the same clients.
 */
final class ClosedLoop implements AutoCloseable {

  private final Semaphore places;
  private final DoubleSupplier finished;
  private final Thread pacer;
  private final ExecutorService clients;
  private final AtomicLong started = new AtomicLong();
  private volatile boolean running = true;

  /**
   * @param finished how many instances have finished since the loop began (may be fractional: steps / steps each)
   * @param clients the load generator's threads, each starting one instance at a time
   * @param start one start (an HTTP request), answered before it returns
   */
  ClosedLoop(int inFlight, DoubleSupplier finished, int clients, BooleanSupplier start) {
    this.places = new Semaphore(inFlight);
    this.finished = finished;
    this.pacer = new Thread(this::pace, "bench-closed-loop-pacer");
    pacer.setDaemon(true);
    pacer.start();
    this.clients = Executors.newFixedThreadPool(clients);
    for (int i = 0; i < clients; i++) {
      this.clients.submit(() -> {
        while (running) {
          if (places.tryAcquire(100, TimeUnit.MILLISECONDS)) { // none within 100 ms: check whether to stop
            started.incrementAndGet();
            start.getAsBoolean();
          }
        }
        return null;
      });
    }
  }

  /** The starts asked for so far (taken places). */
  long started() {
    return started.get();
  }

  private void pace() {
    long freed = 0;
    while (running) {
      long done = (long) Math.floor(finished.getAsDouble());
      if (done > freed) {
        places.release((int) (done - freed));
        freed = done;
      }
      try {
        Thread.sleep(1);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Stops starting; returns once every start under way has been answered. */
  @Override
  public void close() throws InterruptedException {
    if (!running) {
      return;
    }
    running = false;
    pacer.interrupt();
    clients.shutdown();
    clients.awaitTermination(1, TimeUnit.MINUTES);
  }
}
