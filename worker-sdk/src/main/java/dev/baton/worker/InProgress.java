package dev.baton.worker;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keys being handled right now in this process. A duplicate can arrive while its first delivery is still in the
 * handler: after a connection drop the broker redelivers at once on the recovered channel, or a re-sent command
 * lands on another channel. It must not run the handler a second time, nor hold up the deliveries behind it: it is
 * put aside until the first is over, and then finds its outcome in the store. Over means the handler really ended:
 * one that outlived its time limit and ignores the interrupt keeps its claim until it returns, since it may still be
 * applying its effect.
 */
final class InProgress {

  private final ConcurrentHashMap<String, CompletableFuture<Void>> running = new ConcurrentHashMap<>();

  /** Released when the handling of a key is over (outcome remembered, or failure decided). */
  interface Claim extends AutoCloseable {
    @Override
    void close();
  }

  private static final Claim NOTHING = () -> {};

  /**
   * Claims {@code key} if no one holds it (a null key claims nothing).
   *
   * @return the claim, or empty when another delivery holds the key: then {@link #released} says when to try again
   */
  Optional<Claim> tryClaim(String key) {
    if (key == null) {
      return Optional.of(NOTHING);
    }
    CompletableFuture<Void> mine = new CompletableFuture<>();
    if (running.putIfAbsent(key, mine) != null) {
      return Optional.empty();
    }
    return Optional.of(() -> {
      running.remove(key, mine);
      mine.complete(null);
    });
  }

  /** Completes when whoever holds {@code key} now lets it go (at once when no one does). */
  CompletableFuture<Void> released(String key) {
    CompletableFuture<Void> holder = key == null ? null : running.get(key);
    return holder == null ? CompletableFuture.completedFuture(null) : holder;
  }
}
