package dev.baton.worker;

import java.util.concurrent.CountDownLatch;

/** A handler's body that ignores interrupts, as blocking I/O does: the SDK's interrupt at the limit does not stop it. */
final class Uninterruptible {

  private Uninterruptible() {}

  /** Waits for {@code gate} however often interrupted (the interrupt status is restored after), then returns. */
  static <T> T ignoringInterrupts(CountDownLatch gate, T result) {
    boolean interrupted = false;
    while (true) {
      try {
        gate.await();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return result;
  }
}
