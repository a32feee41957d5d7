package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.engine.InstanceService.Started;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Actor;
import java.sql.SQLException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for single starts: concurrent start requests wait in a short, bounded queue, and a few writers each
 * take what is waiting (up to {@link #MAX_GROUP}) and start it in one transaction. A caller is answered only once its
 * group has committed, so nothing is acknowledged before it is durable; under load one commit (one WAL flush, one
 * round of statements) serves many starts, and with one request waiting a group is that request alone, at no extra
 * wait. If a group's transaction fails, each of its requests is tried again alone, so one start that cannot be made
 * (a spec that cannot run) fails only itself.
 */
final class StartGroups implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(StartGroups.class);

  /** The most starts one transaction takes: enough to share a commit, few enough to keep row locks short. */
  static final int MAX_GROUP = 64;
  /** Writers, each with a transaction (a connection) at a time. */
  static final int WRITERS = 2;
  /** Requests waiting; a full queue makes callers wait up to {@link #OFFER_TIMEOUT_SECONDS}, then a 503. */
  static final int CAPACITY = 4096;
  static final int OFFER_TIMEOUT_SECONDS = 10;

  /**
   * One start waiting for its group's commit.
   *
   * @param actor who asked for it (its audit entry)
   * @param queuedNanos when it was queued ({@link System#nanoTime}): the start of its wait for a writer
   */
  record Request(String namespace, String workflow, WorkflowSpec spec, String businessKey, String inputJson,
      String traceparent, Actor actor, CompletableFuture<Started> answer, long queuedNanos) {

    Request(String namespace, String workflow, WorkflowSpec spec, String businessKey, String inputJson,
        String traceparent, Actor actor, CompletableFuture<Started> answer) {
      this(namespace, workflow, spec, businessKey, inputJson, traceparent, actor, answer, System.nanoTime());
    }
  }

  /** Starts a group in one transaction (answers in the order given), or one request alone in its own. */
  interface Writer {
    List<Started> startTogether(List<Request> group) throws SQLException;

    Started startAlone(Request request) throws SQLException;
  }

  private final BlockingQueue<Request> queue = new ArrayBlockingQueue<>(CAPACITY);
  private final Writer writer;
  private final RuntimeMetrics metrics;
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean closed;

  StartGroups(Writer writer) {
    this(writer, null);
  }

  /** @param metrics where the starts' wait for a writer is timed (null: nowhere) */
  StartGroups(Writer writer, RuntimeMetrics metrics) {
    this.writer = writer;
    this.metrics = metrics;
    for (int i = 0; i < WRITERS; i++) {
      Thread t = new Thread(this::run, "baton-start-writer-" + i);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
  }

  /** Starts the request with the next group and waits for its commit. */
  Started submit(Request request) throws SQLException {
    try {
      if (closed || !queue.offer(request, OFFER_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        throw new SQLTransientException(closed ? "the runtime is stopping" : "too many starts are waiting: try again");
      }
      return request.answer().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLTransientException("interrupted while starting", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SQLException sql) {
        throw sql;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Requests waiting for a writer. */
  int waiting() {
    return queue.size();
  }

  private void run() {
    while (!closed || !queue.isEmpty()) {
      Request first;
      try {
        first = queue.poll(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (first == null) {
        continue;
      }
      List<Request> group = new ArrayList<>();
      group.add(first);
      queue.drainTo(group, MAX_GROUP - 1);
      try {
        write(group);
      } catch (Throwable t) {
        // Supervised (docs/design.md#runtime-semantics): whatever a write throws, an Error included, its callers get
        // an answer and the writer goes on; otherwise they would wait for ever and the next starts with them.
        LOG.error("A start writer failed on a group of {}; they are answered with the error and the writer goes on",
            group.size(), t);
        group.forEach(r -> r.answer().completeExceptionally(t));
      }
    }
  }

  private void write(List<Request> group) {
    if (metrics != null) {
      long taken = System.nanoTime();
      for (Request r : group) {
        metrics.hop(RuntimeMetrics.Hop.START_WAIT, taken - r.queuedNanos());
      }
    }
    writeNow(group);
  }

  private void writeNow(List<Request> group) {
    if (group.size() > 1) {
      try {
        List<Started> results = writer.startTogether(group);
        for (int i = 0; i < group.size(); i++) {
          group.get(i).answer().complete(results.get(i));
        }
        return;
      } catch (Exception | Error e) {
        LOG.debug("a group of {} starts failed ({}); each is tried alone", group.size(), e.toString());
      }
    }
    for (Request r : group) {
      try {
        r.answer().complete(writer.startAlone(r));
      } catch (Throwable t) {
        r.answer().completeExceptionally(t);
      }
    }
  }

  /** Stops taking requests; the ones waiting are still started (or answered with why not) before the writers end. */
  @Override
  public void close() throws InterruptedException {
    closed = true;
    for (Thread t : threads) {
      t.join(TimeUnit.SECONDS.toMillis(OFFER_TIMEOUT_SECONDS));
    }
    Request left;
    while ((left = queue.poll()) != null) {
      left.answer().completeExceptionally(new SQLTransientException("the runtime is stopping"));
    }
  }
}
