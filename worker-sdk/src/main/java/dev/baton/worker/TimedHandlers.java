package dev.baton.worker;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs handlers on threads of their own, each bounded by a timeout: never on the AMQP client's dispatch thread, and
 * never so that a hung handler holds up its channel. A handler still running at its timeout is interrupted and its
 * future fails with {@link HandlerTimeoutException} (a technical failure); a handler that ignores the interrupt keeps
 * its thread, but nothing waits for it.
 */
final class TimedHandlers implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TimedHandlers.class);

  private final ExecutorService threads;
  private final ScheduledThreadPoolExecutor timer;

  TimedHandlers(ExecutorService threads) {
    this.threads = threads;
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "baton-handler-timeouts");
      t.setDaemon(true);
      return t;
    });
    // A timeout is cancelled as soon as its handler returns: do not keep millions of them queued.
    timer.setRemoveOnCancelPolicy(true);
  }

  /**
   * Starts the handler; the future completes with its result or its exception (an {@link Error} included), or with
   * {@link HandlerTimeoutException} once {@code timeout} has passed.
   */
  <T> CompletableFuture<T> start(String consumer, Duration timeout, Callable<T> handler) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Future<?> running;
    try {
      running = threads.submit(() -> {
        try {
          result.complete(handler.call());
        } catch (Throwable t) {
          result.completeExceptionally(t);
        }
      });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("the worker is closing", e));
      return result;
    }
    ScheduledFuture<?> deadline = timer.schedule(() -> {
      if (result.completeExceptionally(new HandlerTimeoutException(consumer, timeout))) {
        running.cancel(true);
        LOG.warn("the handler of {} did not finish within {} ms; interrupted it", consumer, timeout.toMillis());
      }
    }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    result.whenComplete((r, e) -> deadline.cancel(false));
    return result;
  }

  @Override
  public void close() {
    timer.shutdownNow();
    threads.shutdownNow(); // interrupts handlers still running
  }
}
