package dev.baton.worker;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * Keys being handled right now in this process. A duplicate can arrive while its first delivery is still in the
 * handler: after a connection drop the broker redelivers at once on the recovered channel, or a re-sent command
 * lands on another channel. It then waits for the first to finish, and finds its outcome in the store instead of
 * running the handler a second time.
 */
final class InProgress {

  private final ConcurrentHashMap<String, CountDownLatch> running = new ConcurrentHashMap<>();

  /** Released when the handling of a key is over (outcome remembered, or failure decided). */
  interface Claim extends AutoCloseable {
    @Override
    void close();
  }

  private static final Claim NOTHING = () -> {};

  /** Claims {@code key}, first waiting for whoever holds it; a null key claims nothing. */
  Claim claim(String key) throws InterruptedException {
    if (key == null) {
      return NOTHING;
    }
    while (true) {
      CountDownLatch mine = new CountDownLatch(1);
      CountDownLatch other = running.putIfAbsent(key, mine);
      if (other == null) {
        return () -> {
          running.remove(key, mine);
          mine.countDown();
        };
      }
      other.await();
    }
  }
}
