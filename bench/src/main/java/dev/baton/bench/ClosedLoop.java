package dev.baton.bench;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * The places of a closed loop: {@code inFlight} of them at first, and one more each time an instance finishes. The
 * load generator's threads block on a free place; one pacer thread watches how many instances have finished (every
 * millisecond) and frees their places. Before, every load-generator thread polled the finished count itself each
 * millisecond: 32 threads waking a thousand times a second took a third of a core of the machine under test.
 */
final class ClosedLoop implements AutoCloseable {

  private final Semaphore places;
  private final DoubleSupplier finished;
  private final Thread pacer;
  private volatile boolean running = true;

  /** @param finished how many instances have finished since the loop began (may be fractional: steps / steps each) */
  ClosedLoop(int inFlight, DoubleSupplier finished) {
    this.places = new Semaphore(inFlight);
    this.finished = finished;
    this.pacer = new Thread(this::pace, "bench-closed-loop-pacer");
    pacer.setDaemon(true);
    pacer.start();
  }

  /** Waits up to 100 ms for a free place and takes it; false when none came (the caller checks whether to stop). */
  boolean take() throws InterruptedException {
    return places.tryAcquire(100, TimeUnit.MILLISECONDS);
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

  @Override
  public void close() {
    running = false;
    pacer.interrupt();
  }
}
