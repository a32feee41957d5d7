package dev.baton.worker;

import java.time.Duration;

/**
 * Counts deliveries between their arrival and their ack (or until their channel went away), so that a graceful
 * shutdown can wait for handlers and for the confirms of what they published.
 */
final class InFlight {

  private int count;

  synchronized void begin() {
    count++;
  }

  synchronized void end() {
    if (count > 0 && --count == 0) {
      notifyAll();
    }
  }

  synchronized int count() {
    return count;
  }

  /** Waits until nothing is in flight; false if {@code timeout} passed first. */
  synchronized boolean awaitIdle(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (count > 0) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      wait(Math.max(1, left / 1_000_000));
    }
    return true;
  }
}
