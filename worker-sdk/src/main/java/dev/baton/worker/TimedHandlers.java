package dev.baton.worker;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs handlers on a bounded pool of threads of their own, each within a time limit: never on the AMQP client's
 * dispatch thread, and never so that a hung handler holds up its channel.
 *
 * <p>A handler still running at its limit is interrupted and its run is reported {@link Run#overran() overran}: its
 * channel goes on with the deliveries behind it. But the run is over only when the handler really returns
 * ({@link Run#ended()}): a handler that ignores the interrupt (blocking I/O does) may still be applying its effect,
 * so its message must neither be retried nor run again until then, and its outcome, however late, is still the
 * outcome. One still running at twice its limit is reported stuck (a WARN line, {@link WorkerListener#stuck}), and
 * again each time its running time doubles.
 *
 * <p>At most {@code maxThreads} handlers run at once: a hung handler keeps its thread, and threads must not grow
 * without bound. A handler started while all are busy waits for one (its time limit counts from when it really
 * starts); its channel waits for it meanwhile, so the broker stops delivering once the prefetch is used up.
 */
final class TimedHandlers implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TimedHandlers.class);

  private final int maxThreads;
  private final ThreadPoolExecutor threads;
  private final ScheduledThreadPoolExecutor timer;
  private final WorkerListener listener;

  TimedHandlers(int maxThreads, ThreadFactory threadFactory, WorkerListener listener) {
    this.maxThreads = HandlerLimits.atLeastOne(maxThreads, "handler threads");
    this.listener = listener;
    // Never more than maxThreads threads; handlers started beyond them queue (one per channel at most: a channel
    // waits for the handler it started until it runs past its limit). Idle threads go after a minute.
    this.threads = new ThreadPoolExecutor(maxThreads, maxThreads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
        threadFactory);
    threads.allowCoreThreadTimeOut(true);
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "baton-handler-timeouts");
      t.setDaemon(true);
      return t;
    });
    // A limit is cancelled as soon as its handler returns: do not keep millions of them queued.
    timer.setRemoveOnCancelPolicy(true);
  }

  /**
   * One handler's run.
   *
   * @param ended completes when the handler has returned (its result) or thrown (its exception, an {@link Error}
   *     included; a {@link HandlerTimeoutException} if it overran its limit first); never earlier
   * @param overran completes, with the limit, when the limit passed while the handler still ran; else never
   */
  record Run<T>(CompletableFuture<T> ended, CompletableFuture<Duration> overran) {

    /**
     * The delivery's decision: {@code deciding} applied to how the handler ended, or, when the handler outlives its
     * limit first, {@link DeliveryDecision#overdue} of it, so that the channel goes on meanwhile.
     */
    CompletableFuture<DeliveryDecision> decide(BiFunction<? super T, Throwable, DeliveryDecision> deciding) {
      CompletableFuture<DeliveryDecision> eventual = ended.handle(deciding);
      CompletableFuture<DeliveryDecision> first = new CompletableFuture<>();
      eventual.whenComplete((d, e) -> {
        if (e == null) {
          first.complete(d);
        } else {
          first.completeExceptionally(e);
        }
      });
      overran.thenRun(() -> first.complete(DeliveryDecision.overdue(eventual)));
      return first;
    }
  }

  /**
   * Starts the handler on a thread of the pool, as soon as one is free.
   *
   * @param consumer what runs, for logs ({@code command pay})
   * @param messageId the message it handles, for logs and {@link WorkerListener#stuck}
   * @param limit its time limit, asked for when it really starts (the time left until a deadline shrinks meanwhile)
   */
  <T> Run<T> start(String consumer, String messageId, Supplier<Duration> limit, Callable<T> handler) {
    Running<T> running = new Running<>(consumer, messageId, limit, handler);
    try {
      threads.execute(running);
    } catch (RejectedExecutionException e) {
      running.abandon();
    }
    return new Run<>(running.ended, running.overran);
  }

  /** The most handlers that run at once. */
  int maxThreads() {
    return maxThreads;
  }

  /** Handlers running now (an estimate, for tests and logs). */
  int running() {
    return threads.getActiveCount();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    // Interrupts handlers still running; those never started end as "closing".
    List<Runnable> neverStarted = threads.shutdownNow();
    for (Runnable r : neverStarted) {
      if (r instanceof Running<?> running) {
        running.abandon();
      }
    }
  }

  private final class Running<T> implements Runnable {

    final CompletableFuture<T> ended = new CompletableFuture<>();
    final CompletableFuture<Duration> overran = new CompletableFuture<>();
    private final String consumer;
    private final String messageId;
    private final Supplier<Duration> limitWhenStarted;
    private final Callable<T> handler;

    // Guarded by this: the timer may interrupt the handler's thread only while it still runs this handler.
    private Thread thread;
    private boolean over;
    private boolean pastLimit;
    private ScheduledFuture<?> nextCheck;
    private long startedNanos;
    private Duration limit;

    Running(String consumer, String messageId, Supplier<Duration> limit, Callable<T> handler) {
      this.consumer = consumer;
      this.messageId = messageId;
      this.limitWhenStarted = limit;
      this.handler = handler;
    }

    @Override
    public void run() {
      synchronized (this) {
        thread = Thread.currentThread();
        startedNanos = System.nanoTime();
        limit = limitWhenStarted.get();
        nextCheck = schedule(this::limitReached, limit);
      }
      T result = null;
      Throwable failure = null;
      try {
        result = handler.call();
      } catch (Throwable t) {
        failure = t;
      }
      boolean late;
      synchronized (this) {
        over = true;
        late = pastLimit;
        if (nextCheck != null) {
          nextCheck.cancel(false);
        }
      }
      // An interrupt meant for this handler must not reach the next one this thread runs.
      Thread.interrupted();
      if (late) {
        Duration ran = sinceStart();
        if (failure == null) {
          LOG.warn("the handler of {} (message_id={}) returned {} ms after it started, past its limit of {} ms: its "
              + "outcome is published late and remembered", consumer, messageId, ran.toMillis(), limit.toMillis());
        } else {
          // The usual end of an interrupted handler: the staircase's line says what becomes of it.
          LOG.info("the handler of {} (message_id={}) ended {} ms after it started, past its limit of {} ms: {}",
              consumer, messageId, ran.toMillis(), limit.toMillis(), failure.toString());
          failure = new HandlerTimeoutException(consumer, limit, ran, failure);
        }
      }
      if (failure != null) {
        ended.completeExceptionally(failure);
      } else {
        ended.complete(result);
      }
    }

    private void limitReached() {
      synchronized (this) {
        if (over) {
          return;
        }
        pastLimit = true; // before the interrupt: the handler may end at once, and must be seen as past its limit
        thread.interrupt();
        nextCheck = schedule(this::stillRunning, limit); // at twice the limit
      }
      LOG.warn("the handler of {} (message_id={}) did not finish within {} ms: interrupted it. Its delivery stays "
          + "unacked and its message is not run again until it ends", consumer, messageId, limit.toMillis());
      overran.complete(limit);
    }

    private void stillRunning() {
      Duration running;
      synchronized (this) {
        if (over) {
          return;
        }
        running = sinceStart();
        nextCheck = schedule(this::stillRunning, running); // again when its running time has doubled
      }
      LOG.warn("the handler of {} (message_id={}) is stuck: running for {} ms, past its limit of {} ms, and it "
          + "ignores the interrupt; it keeps its thread, its delivery and its message id until it ends", consumer,
          messageId, running.toMillis(), limit.toMillis());
      listener.stuck(consumer, messageId, running);
    }

    private Duration sinceStart() {
      return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    private ScheduledFuture<?> schedule(Runnable check, Duration after) {
      try {
        return timer.schedule(check, after.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        return null; // closing
      }
    }

    /** Never started: the worker is closing. */
    void abandon() {
      ended.completeExceptionally(new IllegalStateException("the worker is closing"));
    }
  }
}
