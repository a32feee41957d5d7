package dev.baton.runtime.relay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import dev.baton.api.json.Json;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.messaging.ConfirmedPublisher;
import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.PublishResult.Failure;
import dev.baton.messaging.PublishResult;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.runtime.engine.OutboxSignal;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.QueuedCommand;
import dev.baton.runtime.tracing.InstanceTracing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox (docs/design.md#runtime-semantics, "no lost commands"), apart from the step loop. The commits
 * that wrote commands hand them over ({@link #committed}): the relay claims their rows by id and publishes the
 * messages it was handed, without searching the outbox or reading them back. It also searches the outbox, oldest
 * first: on its periodic poll (rows of other replicas, rows set aside whose time has come, rows of commits it was not
 * handed, or more than it keeps in hand: {@value #MAX_HANDED}), at its start and after a failure; it asks the database
 * only when a search may find rows ({@link ClaimGate}). Searching in id order walks every index entry of the rows
 * deleted since the outbox was last vacuumed (thousands a second under load), which claiming by id does not.
 *
 * <p>Each batch is its own transaction: it claims rows with {@code FOR UPDATE SKIP LOCKED} (replicas share the work;
 * a row found and handed over is claimed once), publishes them with the mandatory flag, and keeps the rows locked
 * until the broker has answered for every message; then it deletes what was confirmed, sets aside what the broker
 * would not take, and commits. A crash before the commit re-sends the batch with the same message ids (workers
 * dedupe); nothing is dropped.
 *
 * <p>Confirms are asynchronous ({@link ConfirmedPublisher}) and batches are pipelined: up to {@value #DEPTH}
 * batches are published and waiting at once, each on its own database connection (its rows stay locked, so the next
 * claim skips them, as another replica's would); with that many waiting, the commands handed over meanwhile join the
 * newest batch, so none waits for confirms to be published. The relay thread finishes a batch once the broker has
 * answered for all of it; batches finish in the order they were published.
 *
 * <p>One bad row never stops the others (docs/design.md#runtime-semantics, "one bad item"). Each message has its
 * own outcome: confirmed rows are deleted (never sent again), unroutable ones and those the broker refuses (nack)
 * are set aside with {@code last_error}, {@code attempts} and a backoff. A channel error (a command over the
 * broker's {@code max_message_size}, an exchange that may not be written) fails every message on the channel that
 * was not confirmed yet, without saying which one caused it (some may have been routed before it, their confirms
 * lost with the channel): publishing stops there, no newer batch is sent, and the rows that failed are published
 * again one at a time, in order (at least once: a worker dedupes by message id); the one that fails alone is the
 * culprit and is set aside, the others flow. Only a failure that says nothing about the messages (the connection is
 * down, no confirm in time) leaves rows as they are for the next round, after a backoff.
 */
public final class OutboxRelay implements OutboxSignal, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(15);
  /** Beyond the publisher's own confirm timeout, which completes every future: only a safety net. */
  private static final long WAIT_MARGIN_MS = 5_000;
  /** Batches published and awaiting their confirms at once (each holds one database connection meanwhile). */
  static final int DEPTH = 3;
  private static final ObjectReader HEADERS = Json.MAPPER.readerFor(LinkedHashMap.class);
  /** Commands kept in hand at most; the commits beyond are left for the search (the broker is slow or away). */
  static final int MAX_HANDED = 20_000;

  private final Database database;
  private final OutboxStore store;
  private final ExchangeProbe probe;
  private final RuntimeMetrics metrics;
  private final int batchSize;
  private final Duration pollInterval;
  private final ConfirmedPublisher publisher;
  private final Semaphore wakeups = new Semaphore(0);
  private final ClaimGate gate;
  private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
  /** Commands handed over at their commit, in commit order, not claimed yet. */
  private final ConcurrentLinkedQueue<Handed> handed = new ConcurrentLinkedQueue<>();
  private final AtomicInteger handedCount = new AtomicInteger();
  /** How many commands the last {@link #claimHanded} took from the hand (the relay's thread only). */
  private int handedTaken;
  private final Thread thread;
  private volatile boolean running = true;

  public OutboxRelay(Database database, OutboxStore store, Connection connection, RuntimeMetrics metrics,
      int batchSize, Duration pollInterval) {
    this.database = database;
    this.store = store;
    this.probe = new ExchangeProbe(connection);
    this.metrics = metrics;
    this.batchSize = batchSize;
    this.pollInterval = pollInterval;
    this.gate = new ClaimGate(pollInterval.toNanos(), System::nanoTime);
    this.publisher = new ConfirmedPublisher(connection, "outbox-relay", CONFIRM_TIMEOUT);
    this.thread = new Thread(this::run, "baton-outbox-relay");
  }

  public void start() {
    thread.start();
  }

  @Override
  public void committed(List<QueuedCommand> commands) {
    if (commands.isEmpty()) {
      return;
    }
    if (handedCount.get() + commands.size() > MAX_HANDED) {
      commandsWritten(); // the search finds them
      return;
    }
    long now = System.currentTimeMillis();
    for (QueuedCommand command : commands) {
      handed.add(new Handed(command, now));
    }
    handedCount.addAndGet(commands.size());
    wakeUp();
  }

  @Override
  public void commandsWritten() {
    gate.written();
    wakeUp();
  }

  /** A command handed over, and when its transaction committed. */
  private record Handed(QueuedCommand command, long committedMillis) {}

  /** Wakes the relay's thread: commands were written, or confirms came in. */
  private void wakeUp() {
    if (wakeups.availablePermits() == 0) {
      wakeups.release();
    }
  }

  /** Stops after the batches in flight; what is left stays in the outbox for the next start (or another replica). */
  @Override
  public void close() {
    running = false;
    wakeups.release();
    try {
      thread.join(CONFIRM_TIMEOUT.toMillis() + WAIT_MARGIN_MS);
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(WAIT_MARGIN_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    publisher.close();
  }

  private void run() {
    long backoff = 0;
    while (running) {
      try {
        boolean more = fill();
        if (inFlight.size() >= DEPTH && handedCount.get() > 0 && !anyFailure()) {
          more |= extendNewest();
        }
        Batch oldest = inFlight.peekFirst();
        if (oldest != null && (oldest.answered() || anyFailure())) {
          if (!finish(inFlight.removeFirst(), true)) {
            throw new IOException("the broker did not answer for every command (see above)");
          }
          backoff = 0;
          continue; // refill at once: finished batches make room
        }
        backoff = 0;
        if (more) {
          continue;
        }
        // Until a batch's confirms are in or new commands are handed over or written, whichever comes first:
        // commands committed meanwhile are published at once, not after the batches before them are settled.
        wakeups.tryAcquire(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
        wakeups.drainPermits();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      } catch (Exception | Error e) {
        // Supervised (docs/design.md#runtime-semantics): whatever a round throws, an Error included, the relay
        // thread goes on; ended silently, it would leave every later command in the outbox.
        if (e instanceof Error) {
          LOG.error("Outbox relay round failed on an Error; the relay goes on", e);
        }
        gate.failed(); // the next search finds everything, the commands in hand included
        dropHanded();
        settleAll();
        backoff = Math.min(Math.max(backoff * 2, 200), 5_000);
        LOG.warn("Outbox relay round failed, the commands not confirmed stay in the outbox and are sent again in {} "
            + "ms: {}", backoff, e.toString());
        probe.forget();
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    settleAll();
  }

  /**
   * Claims and publishes batches until {@link #DEPTH} are in flight, the outbox has nothing more due, or a batch in
   * flight has a failure (nothing newer is published before it is sorted out, so the outbox's order is kept).
   *
   * @return true when the last claim was full (more rows may be waiting)
   */
  private boolean fill() throws SQLException {
    boolean full = false;
    while (running && inFlight.size() < DEPTH && !anyFailure() && (handedCount.get() > 0 || gate.claimDue())) {
      Batch b = claimAndPublish();
      if (b == null) {
        if (handedCount.get() > 0) {
          continue; // those handed over were gone already: the next ones
        }
        return false;
      }
      full = b.claimed >= batchSize || handedCount.get() > 0;
      if (b.entries.isEmpty()) {
        b.commit(); // everything was set aside: nothing to wait for
      } else {
        inFlight.addLast(b);
      }
      if (!full) {
        return false;
      }
    }
    return full;
  }

  private boolean anyFailure() {
    long current = publisher.generation();
    return inFlight.stream().anyMatch(b -> b.hasFailure(current));
  }

  /**
   * One batch: open a transaction, claim (the commands in hand first, else by searching), publish in order; null when
   * nothing is due.
   */
  private Batch claimAndPublish() throws SQLException {
    java.sql.Connection c = database.dataSource().getConnection();
    Batch b = new Batch(c);
    try {
      List<OutboxRow> rows;
      if (handedCount.get() > 0) {
        rows = claimHanded(c, batchSize, b.held);
        b.claimed = handedTaken;
      } else {
        gate.claiming();
        rows = store.claim(c, batchSize);
        if (rows.size() >= batchSize) {
          gate.claimedFull();
        }
        b.claimed = rows.size();
      }
      if (rows.isEmpty()) {
        b.rollback();
        return null;
      }
      b.generation = publisher.generation();
      publishInto(b, rows);
      return b;
    } catch (SQLException | RuntimeException e) {
      b.rollback();
      throw e;
    }
  }

  /**
   * With {@link #DEPTH} batches waiting for their confirms, the commands handed over since join the newest batch: in
   * its transaction, on its channel, published at once. Without it they would wait for the oldest batch's confirms
   * (at half load batches are a command or two and three of them are soon waiting: from commit to claim a command
   * waited 2.9 ms on average, 1.6 with this, in back-to-back bench runs). A batch takes commands until it holds a batch's
   * worth.
   *
   * @return whether some were published
   */
  private boolean extendNewest() throws SQLException {
    Batch b = inFlight.peekLast();
    int room = b == null ? 0 : batchSize - b.entries.size();
    if (room <= 0 || b.stopped || b.generation != publisher.generation()) {
      return false;
    }
    List<OutboxRow> rows = claimHanded(b.connection, room, b.held);
    b.claimed += handedTaken;
    if (rows.isEmpty()) {
      return handedTaken > 0;
    }
    publishInto(b, rows);
    return true;
  }

  /**
   * Publishes claimed rows in order on the batch's channel generation, and sets aside in its transaction those whose
   * exchange does not exist or whose headers cannot be read.
   */
  private void publishInto(Batch b, List<OutboxRow> rows) throws SQLException {
    for (OutboxRow row : rows) {
      b.held.add(row.id());
    }
    long claimedNanos = System.nanoTime();
    long claimedMillis = System.currentTimeMillis();
    Map<String, List<Long>> missingExchanges = new LinkedHashMap<>();
    Map<String, Boolean> exists = new HashMap<>();
    List<Long> unreadable = new ArrayList<>();
    List<CompletableFuture<PublishResult>> published = new ArrayList<>(rows.size());
    for (OutboxRow row : rows) {
      String exchange = row.message().exchange();
      if (!exists.computeIfAbsent(exchange, probe::exists)) {
        missingExchanges.computeIfAbsent(exchange, k -> new ArrayList<>()).add(row.id());
        continue;
      }
      OutboundMessage message;
      try {
        message = message(row);
      } catch (RuntimeException e) {
        // Its headers are what cannot be read: the correlation id names the instance.
        try (LogFields.Scope fields = LogFields.open(row.message().correlationId(), null, null, null)) {
          LOG.warn("Command {} of the outbox cannot be sent: {}", row.message().messageId(), e.toString());
        }
        unreadable.add(row.id());
        continue;
      }
      Entry entry = new Entry(row, message);
      b.entries.add(entry);
      if (!b.stopped) {
        // Only while the channel is the one the batch started on: after a channel error, the rest waits for its
        // turn instead of overtaking the rows that failed.
        metrics.hop(RuntimeMetrics.Hop.OUTBOX_WAIT,
            TimeUnit.MILLISECONDS.toNanos(claimedMillis - row.createdAt().toEpochMilli()));
        entry.result = publisher.publishInGeneration(message, b.generation);
        entry.result.thenAccept(r -> {
          if (r.confirmed()) { // on the connection's thread: a timer's record only
            metrics.hop(RuntimeMetrics.Hop.OUTBOX_CONFIRM, System.nanoTime() - claimedNanos);
          }
        });
        published.add(entry.result);
        b.stopped = entry.failedAlready();
      }
    }
    // Their last confirm wakes the relay up, which may be waiting for new commands meanwhile.
    CompletableFuture.allOf(published.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> wakeUp());
    for (Map.Entry<String, List<Long>> e : missingExchanges.entrySet()) {
      setAside(b.connection, e.getValue(), e.getKey(), "exchange " + e.getKey() + " does not exist"
          + readyHint(e.getKey()), true);
    }
    if (!unreadable.isEmpty()) {
      setAside(b.connection, unreadable, "(unreadable)", "the command's headers cannot be read", false);
    }
  }

  /**
   * Claims up to {@code limit} of the commands in hand by their ids, in commit order, in the transaction of {@code c};
   * those no longer there or due (published by a search, withdrawn, set aside) or held by another transaction are
   * dropped: whoever has them sees them through, and so are those the transaction holds already ({@code held}: found
   * by its search before they were handed over). How many were taken from the hand is left in {@link #handedTaken}.
   */
  private List<OutboxRow> claimHanded(java.sql.Connection c, int limit, java.util.Set<Long> held)
      throws SQLException {
    List<Handed> taken = new ArrayList<>(Math.min(limit, handedCount.get()));
    Handed h;
    while (taken.size() < limit && (h = handed.poll()) != null) {
      handedCount.decrementAndGet();
      taken.add(h);
    }
    handedTaken = taken.size();
    taken.removeIf(t -> held.contains(t.command().outboxId()));
    if (taken.isEmpty()) {
      return List.of();
    }
    List<Long> ids = new ArrayList<>(taken.size());
    for (Handed t : taken) {
      ids.add(t.command().outboxId());
    }
    java.util.Set<Long> locked = store.claimById(c, ids);
    List<OutboxRow> rows = new ArrayList<>(locked.size());
    for (Handed t : taken) {
      if (locked.contains(t.command().outboxId())) {
        rows.add(new OutboxRow(t.command().outboxId(), t.command().message(), Instant.ofEpochMilli(t.committedMillis()),
            0));
      }
    }
    return rows;
  }

  /** After a failure: the commands in hand are left to the next search. */
  private void dropHanded() {
    while (handed.poll() != null) {
      handedCount.decrementAndGet();
    }
  }

  /**
   * Waits for the batch's outcomes, then deletes what the broker took, sets aside what it would not, and commits.
   *
   * @param isolate whether rows caught in a channel error are published again one by one to find the culprit
   * @return false when some outcomes say nothing about the commands (connection down, no confirm in time): those
   *     rows are left as they are and the caller backs off
   */
  private boolean finish(Batch b, boolean isolate) throws SQLException, InterruptedException {
    Outcomes outcomes = new Outcomes();
    List<Entry> suspects = new ArrayList<>();
    for (Entry e : b.entries) {
      PublishResult r = e.result == null ? null : await(e.result);
      if (r == null || r.failure() == Failure.CHANNEL_ERROR) {
        suspects.add(e); // not sent, or on a channel that an error closed: maybe its own fault, maybe not
      } else {
        outcomes.add(e, r);
      }
    }
    if (!outcomes.unknown && !suspects.isEmpty()) {
      if (isolate) {
        LOG.warn("A channel error failed {} command(s); publishing them one at a time to find the one at fault",
            suspects.size());
        for (Entry e : suspects) {
          PublishResult alone = await(publisher.publish(e.message));
          outcomes.add(e, alone);
          if (outcomes.unknown) {
            break; // the broker went away meanwhile: the rest waits for the next round
          }
          if (!alone.confirmed()) {
            try (LogFields.Scope fields = InstanceTracing.logFieldsOf(e.message.properties().getHeaders(),
                e.row.message().correlationId(), null)) {
              LOG.warn("Command {} to {} ({}) failed on its own: {}", e.row.message().messageId(),
                  e.message.exchange(), e.message.routingKey(), alone);
            }
          }
        }
      } else {
        outcomes.unknown = true;
      }
    }
    outcomes.write(b);
    b.commit();
    metrics.outboxPublished(outcomes.confirmed.size());
    return !outcomes.unknown;
  }

  /** What a batch's rows came to; written in the batch's transaction. */
  private final class Outcomes {
    final List<Long> confirmed = new ArrayList<>();
    final Map<String, List<Long>> unroutable = new LinkedHashMap<>();
    final Map<String, List<Long>> refused = new LinkedHashMap<>();
    boolean unknown;

    void add(Entry e, PublishResult r) {
      OutboxMessage m = e.row.message();
      switch (r.status()) {
        case CONFIRMED -> confirmed.add(e.row.id());
        case UNROUTABLE -> unroutable.computeIfAbsent(m.exchange() + " " + m.routingKey(), k -> new ArrayList<>())
            .add(e.row.id());
        case NACKED -> refused.computeIfAbsent(m.exchange() + " the broker refused the command (nack)",
            k -> new ArrayList<>()).add(e.row.id());
        case FAILED -> {
          if (r.aboutTheMessage()) {
            refused.computeIfAbsent(m.exchange() + " the broker refused the command: " + r.detail(),
                k -> new ArrayList<>()).add(e.row.id());
          } else {
            unknown = true;
          }
        }
      }
    }

    void write(Batch b) throws SQLException {
      for (Map.Entry<String, List<Long>> e : unroutable.entrySet()) {
        String[] exchangeAndKey = e.getKey().split(" ", 2);
        setAside(b.connection, e.getValue(), exchangeAndKey[0], "no queue bound to " + exchangeAndKey[1] + " on "
            + exchangeAndKey[0] + readyHint(exchangeAndKey[0]), true);
      }
      for (Map.Entry<String, List<Long>> e : refused.entrySet()) {
        String[] exchangeAndReason = e.getKey().split(" ", 2);
        setAside(b.connection, e.getValue(), exchangeAndReason[0], exchangeAndReason[1], false);
      }
      store.confirmed(b.connection, confirmed);
    }
  }

  /** After a failed round: each batch in flight keeps what the broker confirmed (deleted) and leaves the rest. */
  private void settleAll() {
    Batch b;
    while ((b = inFlight.pollFirst()) != null) {
      try {
        finish(b, false);
      } catch (SQLException | RuntimeException e) {
        LOG.warn("Could not record the outcome of a batch, its commands are sent again: {}", e.toString());
        b.rollback();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        b.rollback();
      }
    }
  }

  /** The publisher completes every future within its confirm timeout; the margin only guards against a bug. */
  private static PublishResult await(CompletableFuture<PublishResult> f) throws InterruptedException {
    try {
      return f.get(CONFIRM_TIMEOUT.toMillis() + WAIT_MARGIN_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }

  private void setAside(java.sql.Connection c, List<Long> ids, String exchange, String reason, boolean unroutable)
      throws SQLException {
    store.defer(c, ids, reason);
    if (unroutable) {
      metrics.outboxUnroutable(exchange, ids.size());
    } else {
      metrics.outboxRefused(exchange, ids.size());
    }
    LOG.warn("{} command(s) kept in the outbox and retried later: {}", ids.size(), reason);
  }

  private static String readyHint(String exchange) {
    return " — is WorkerService " + serviceOf(exchange) + " Ready?";
  }

  /** The service of a command exchange {@code S.command.topic.ex} (names come from {@link Names}). */
  static String serviceOf(String exchange) {
    String suffix = Names.commandExchange("");
    return exchange.endsWith(suffix) ? exchange.substring(0, exchange.length() - suffix.length()) : exchange;
  }

  private static OutboundMessage message(OutboxRow row) {
    OutboxMessage m = row.message();
    Map<String, Object> headers;
    try {
      headers = HEADERS.readValue(m.headersJson());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
        .messageId(m.messageId().toString())
        .correlationId(m.correlationId())
        .contentType(Headers.CONTENT_TYPE_JSON)
        .deliveryMode(2)
        .timestamp(new Date(row.createdAt().toEpochMilli()))
        .headers(headers)
        .build();
    return new OutboundMessage(m.exchange(), m.routingKey(), true, props, m.body(), "command " + m.messageId());
  }

  /** One claimed row and, once published, its outcome. */
  private static final class Entry {
    final OutboxRow row;
    final OutboundMessage message;
    /** Null while not sent. */
    CompletableFuture<PublishResult> result;

    Entry(OutboxRow row, OutboundMessage message) {
      this.row = row;
      this.message = message;
    }

    /** Failed without an answer from the broker about it (a nack or a return does not close the channel). */
    boolean failedAlready() {
      return result.isDone() && result.join().status() == PublishResult.Status.FAILED;
    }
  }

  /** Claimed rows on their own transaction, published, waiting for their outcomes. */
  private static final class Batch {
    final java.sql.Connection connection;
    final List<Entry> entries = new ArrayList<>();
    /**
     * The ids of every row its transaction has claimed (published or set aside): a claim by id in the same transaction
     * returns them again, as FOR UPDATE SKIP LOCKED skips only the rows other transactions hold.
     */
    final java.util.Set<Long> held = new java.util.HashSet<>();
    int claimed;
    /** The publisher's channel generation its messages were published in. */
    long generation;
    /** Publishing stopped at a failure: the entries after it were not sent. */
    boolean stopped;
    private boolean closed;

    Batch(java.sql.Connection connection) {
      this.connection = connection;
    }

    /** Whether the broker has answered for every message it was sent (a batch that stopped early never is). */
    boolean answered() {
      return !stopped && entries.stream().allMatch(e -> e.result != null && e.result.isDone());
    }

    /**
     * Whether its channel failed under it: publishing stopped, a message failed, or the channel's generation ended
     * with messages still waiting (they are about to fail). Newer batches wait until it is finished.
     */
    boolean hasFailure(long currentGeneration) {
      return stopped || entries.stream().anyMatch(e -> e.result != null
          && (e.failedAlready() || !e.result.isDone() && currentGeneration != generation));
    }

    void commit() throws SQLException {
      try {
        connection.commit();
      } finally {
        close();
      }
    }

    void rollback() {
      try {
        if (!closed) {
          connection.rollback();
        }
      } catch (SQLException ignored) {
        // the connection is closed next; the locks go with the transaction
      } finally {
        close();
      }
    }

    private void close() {
      if (!closed) {
        closed = true;
        try {
          connection.close();
        } catch (SQLException ignored) {
          // back to the pool or gone
        }
      }
    }
  }
}
