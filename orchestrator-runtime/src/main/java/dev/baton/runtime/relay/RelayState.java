package dev.baton.runtime.relay;

import dev.baton.messaging.ConfirmedPublisher;
import java.util.ArrayDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the relay's thread shares with the committing threads that publish their own commands
 * ({@link AtCommitPublisher}): the batches in flight and the lock over them, the commands in hand, the publisher and
 * its channel generation, whether the relay runs and whether the broker blocks it, and the relay's wake-ups.
 */
final class RelayState {

  /**
   * Held by whoever claims, publishes or settles batches: the relay's thread for each round, or a committing thread
   * publishing its own commands ({@link AtCommitPublisher}); {@link #inFlight} is only touched under it.
   */
  final ReentrantLock rounds = new ReentrantLock();
  final ArrayDeque<InFlightBatch> inFlight = new ArrayDeque<>();
  final HandedCommands handed;
  final ConfirmedPublisher publisher;
  final BrokerBlock block;
  private final Semaphore wakeups = new Semaphore(0);
  private volatile boolean running = true;

  RelayState(HandedCommands handed, ConfirmedPublisher publisher) {
    this.handed = handed;
    this.publisher = publisher;
    this.block = new BrokerBlock(this::wakeUp);
  }

  boolean running() {
    return running;
  }

  /** The relay stops: its thread wakes up to see it. */
  void stop() {
    running = false;
    wakeups.release();
  }

  boolean brokerBlocked() {
    return block.blocked();
  }

  /** Wakes the relay's thread: commands were written, or confirms came in. */
  void wakeUp() {
    if (wakeups.availablePermits() == 0) {
      wakeups.release();
    }
  }

  /** The relay's thread waits for a wake-up, {@code millis} at most. */
  void awaitWakeUp(long millis) throws InterruptedException {
    wakeups.tryAcquire(millis, TimeUnit.MILLISECONDS);
    wakeups.drainPermits();
  }

  /** Whether a batch in flight has a failure (under {@link #rounds}). */
  boolean anyFailure() {
    long current = publisher.generation();
    return inFlight.stream().anyMatch(b -> b.hasFailure(current));
  }
}
