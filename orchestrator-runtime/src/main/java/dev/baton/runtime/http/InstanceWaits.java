package dev.baton.runtime.http;

import dev.baton.runtime.engine.InstanceEndings;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceStore;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The requests waiting for an instance to end ({@code GET /api/v1/instances/{id}?wait=}, docs/design.md#interfaces),
 * waiting without a server thread or a database connection each: a waiter is a future, completed when this runtime
 * ends the instance ({@link InstanceEndings}, at once) or when one re-read of every waited-for instance, each
 * {@link #RECHECK}, sees it ended by another replica; or, with {@code false}, when its wait is over.
 */
final class InstanceWaits implements AutoCloseable {

  /** How often the instances waited for are read again, in one query for all of them. */
  static final Duration RECHECK = Duration.ofMillis(500);

  private static final Logger LOG = LoggerFactory.getLogger(InstanceWaits.class);

  private final Database database;
  private final InstanceStore instances;
  private final Map<UUID, Set<CompletableFuture<Boolean>>> waiting = new ConcurrentHashMap<>();
  private final ScheduledExecutorService recheck = Executors.newSingleThreadScheduledExecutor(
      threads("baton-instance-waits"));
  /** Where an ended wait reads the instance it answers with: off the threads that complete the waits. */
  private final ExecutorService answers = Executors.newFixedThreadPool(2, threads("baton-instance-answers"));

  InstanceWaits(Database database, InstanceStore instances, InstanceEndings endings) {
    this.database = database;
    this.instances = instances;
    endings.listen(this::ended);
    recheck.scheduleWithFixedDelay(this::recheck, RECHECK.toMillis(), RECHECK.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Waits for the instance to end, from now: completes with {@code true} once it has (within {@link #RECHECK} when
   * another replica ended it), with {@code false} after {@code wait}. Registered before the caller reads the
   * instance, so an end between the read and the wait is not missed; a caller that finds it ended completes it.
   */
  CompletableFuture<Boolean> untilEnded(UUID id, Duration wait) {
    CompletableFuture<Boolean> waiter = new CompletableFuture<>();
    waiting.computeIfAbsent(id, k -> ConcurrentHashMap.newKeySet()).add(waiter);
    waiter.whenComplete((ended, error) -> forget(id, waiter));
    waiter.completeOnTimeout(false, wait.toMillis(), TimeUnit.MILLISECONDS);
    return waiter;
  }

  /** The threads ended waits read their answer on (a database read each). */
  ExecutorService answers() {
    return answers;
  }

  private void forget(UUID id, CompletableFuture<Boolean> waiter) {
    waiting.computeIfPresent(id, (k, set) -> {
      set.remove(waiter);
      return set.isEmpty() ? null : set;
    });
  }

  private void ended(Collection<UUID> ids) {
    for (UUID id : ids) {
      Set<CompletableFuture<Boolean>> waiters = waiting.get(id);
      if (waiters != null) {
        List.copyOf(waiters).forEach(w -> w.complete(true));
      }
    }
  }

  /** Instances another replica ended: one query for every instance waited for, and only while some are. */
  private void recheck() {
    if (waiting.isEmpty()) {
      return;
    }
    try {
      List<UUID> ended = database.inTransaction(c -> instances.endedAmong(c, List.copyOf(waiting.keySet())));
      ended(ended);
    } catch (Exception e) {
      LOG.debug("Re-reading the instances waited for failed, tried again shortly: {}", e.toString());
    }
  }

  /** Answers every waiting request with the instance as it is, and stops. */
  @Override
  public void close() throws InterruptedException {
    recheck.shutdownNow();
    waiting.values().forEach(set -> List.copyOf(set).forEach(w -> w.complete(false)));
    answers.shutdown();
    answers.awaitTermination(5, TimeUnit.SECONDS);
  }

  private static ThreadFactory threads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
