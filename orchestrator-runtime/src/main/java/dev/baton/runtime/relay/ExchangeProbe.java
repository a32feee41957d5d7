package dev.baton.runtime.relay;

import com.rabbitmq.client.Connection;
import dev.baton.runtime.broker.BrokerObjects;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Tells whether an exchange exists before the relay publishes to it: publishing to a missing exchange closes the
 * publishing channel and would fail the whole batch, again and again. A positive answer is remembered for a while.
 *
 * <p>The question is an RPC on the relay's connection, which the broker stops reading while it blocks publishers (a
 * memory or disk alarm): the client would wait for its RPC timeout, ten minutes by default, with the batch's rows
 * locked. So it is asked on a thread of its own and waited for {@value #ASK_TIMEOUT_MS} ms at most, less once the
 * connection is known to be blocked; a question still unanswered is not asked again but its answer awaited at the
 * next round. Used by the relay's thread only.
 */
final class ExchangeProbe implements AutoCloseable {

  private static final long REMEMBER_MS = 30_000;
  static final long ASK_TIMEOUT_MS = 5_000;

  private final Connection connection;
  private final BooleanSupplier blocked;
  private final Map<String, Long> knownUntil = new HashMap<>();
  private final Map<String, CompletableFuture<Boolean>> asking = new HashMap<>();
  private final ExecutorService askers = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "baton-exchange-probe");
    t.setDaemon(true);
    return t;
  });

  /** @param blocked whether the broker blocks the connection (then an unanswered question is given up at once) */
  ExchangeProbe(Connection connection, BooleanSupplier blocked) {
    this.connection = connection;
    this.blocked = blocked;
  }

  /**
   * @throws UncheckedIOException when the broker cannot be asked or does not answer in time (the relay round fails
   *     and is retried; rows are not set aside for a missing exchange that may well exist)
   */
  boolean exists(String exchange) {
    Long until = knownUntil.get(exchange);
    long now = System.currentTimeMillis();
    if (until != null && until > now) {
      return true;
    }
    CompletableFuture<Boolean> answer = asking.computeIfAbsent(exchange, e -> CompletableFuture.supplyAsync(() -> {
      try {
        return BrokerObjects.exchangeExists(connection, e);
      } catch (IOException ex) {
        throw new CompletionException(ex);
      }
    }, askers));
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ASK_TIMEOUT_MS);
    try {
      while (true) {
        try {
          boolean exists = answer.get(50, TimeUnit.MILLISECONDS);
          asking.remove(exchange);
          if (exists) {
            knownUntil.put(exchange, System.currentTimeMillis() + REMEMBER_MS);
          } else {
            knownUntil.remove(exchange);
          }
          return exists;
        } catch (TimeoutException stillAsking) {
          if (blocked.getAsBoolean() || System.nanoTime() - deadline >= 0) {
            throw new UncheckedIOException(new IOException("cannot check exchange " + exchange + ": the broker did not"
                + " answer" + (blocked.getAsBoolean() ? " (it blocks publishers: a memory or disk alarm)"
                : " within " + Duration.ofMillis(ASK_TIMEOUT_MS).toSeconds() + " s")));
          }
        }
      }
    } catch (ExecutionException e) {
      asking.remove(exchange);
      Throwable cause = e.getCause() instanceof CompletionException c && c.getCause() != null ? c.getCause()
          : e.getCause();
      throw new UncheckedIOException(new IOException("cannot check exchange " + exchange + ": " + cause, cause));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted while checking exchange " + exchange));
    }
  }

  /** After a publish failed: check every exchange again. */
  void forget() {
    knownUntil.clear();
  }

  @Override
  public void close() {
    askers.shutdownNow();
  }
}
