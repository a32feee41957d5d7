package dev.baton.runtime.relay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.BlockedListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ShutdownListener;
import dev.baton.api.json.Json;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.messaging.ConfirmedPublisher;
import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.PublishResult.Failure;
import dev.baton.messaging.PublishResult;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessagingSpans;
import dev.baton.runtime.engine.CommandRefusals;
import dev.baton.runtime.engine.OutboxSignal;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.QueuedCommand;
import dev.baton.runtime.tracing.InstanceTracing;
import dev.baton.runtime.tracing.PublishTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
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
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox (docs/design.md#runtime-semantics, "no lost commands"), apart from the step loop. The commits
 * that wrote commands hand them over ({@link #committed}): the relay claims their rows by id and publishes the
 * messages it was handed, without searching the outbox or reading them back; when the relay is free, the committing
 * thread does that itself ({@link #publishAtCommit}). It also searches the outbox, oldest
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
 * <p>One bad row never stops the others (docs/design.md#runtime-semantics, "one bad item", "refused commands fail
 * fast"). Each message has its own outcome: confirmed rows are deleted (never sent again); a command the broker
 * refuses (a nack, headers that cannot be sent) is marked refused with the broker's reason ({@code refused}, never
 * claimed again) and, once the batch has committed, handed to the engine ({@link CommandRefusals}), which fails the
 * attempt that sent it. A command whose exchange does not exist, or that is returned unroutable (no queue bound), is
 * set aside with {@code last_error}, {@code attempts} and a backoff: its WorkerService may not be Ready yet; still
 * returned unroutable {@link #UNROUTABLE_REFUSED_AFTER} after its first return, it counts as refused. A channel error
 * (a command over the broker's {@code max_message_size}, an exchange that may not be written) fails every message on
 * the channel that was not confirmed yet, without saying which one caused it (some may have been routed before it,
 * their confirms lost with the channel): publishing stops there, no newer batch is sent, and the rows that failed are
 * published again one at a time, in order (at least once: a worker dedupes by message id); the one that fails alone
 * is the culprit and is refused (a missing exchange, 404, is set aside instead), the others flow. A refusal that names
 * the broker's {@code max_message_size} teaches it to {@link BrokerMessageLimit}. Only a failure that says nothing
 * about the messages (the connection is down, no confirm in time) leaves rows as they are for the next round, after a
 * backoff.
 *
 * <p>A broker alarm (memory, disk) never holds the runtime up. The broker stops reading a publishing connection it
 * blocks, so confirms stop and RPCs wait; it says so ({@code connection.blocked}). While blocked the relay claims
 * nothing (it holds no new row lock), and the batches in flight let go of their rows at once: what the broker
 * answered is recorded, the rows still waiting for a confirm are committed in doubt ({@code in_doubt}: their command
 * may reach a worker once the alarm clears, so a cancel awaits their step instead of taking it for one that never
 * ran) and not due for {@link #IN_DOUBT_FOR}, and their confirms are awaited apart ({@link #detached}): a confirm
 * deletes its row then, a confirm that never comes makes it due again (sent again, same message id). A batch whose
 * confirms take longer than {@link #HOLD_AT_MOST} lets go of its rows the same way, notification or not. Timers,
 * cancels and lanes, which withdraw or write rows, never wait long for the relay's.
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
  /**
   * A commit of more commands than this (a batch of starts) is left to the relay: its committing thread, which answers
   * the callers after this, does not publish them first.
   */
  static final int MAX_AT_COMMIT = 50;
  /**
   * A command returned unroutable this long after its first return (with the backoff, its sixth publish or so) counts
   * as refused: a WorkerService being declared has its bindings well before.
   */
  static final Duration UNROUTABLE_REFUSED_AFTER = Duration.ofSeconds(30);
  /** The longest a batch keeps its rows locked waiting for confirms; then it lets go of them, as in an alarm. */
  static final Duration HOLD_AT_MOST = Duration.ofSeconds(3);
  /** Rows let go of while their confirms may still come are not due for this long: their confirms come first. */
  static final Duration IN_DOUBT_FOR = CONFIRM_TIMEOUT.plusSeconds(15);

  private final Database database;
  private final OutboxStore store;
  private final ExchangeProbe probe;
  private final RuntimeMetrics metrics;
  private final int batchSize;
  private final Duration pollInterval;
  private final ConfirmedPublisher publisher;
  private final Semaphore wakeups = new Semaphore(0);
  private final PublishTracing tracing;
  /** The rows of commands with a maxInFlight: claimed within their capacity, apart from the others. */
  private final LimitedClaims limited;
  private final ClaimGate gate;
  private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
  /** Commands handed over at their commit, in commit order, not claimed yet. */
  private final ConcurrentLinkedQueue<Handed> handed = new ConcurrentLinkedQueue<>();
  private final AtomicInteger handedCount = new AtomicInteger();
  /** How many commands the last {@link #claimHanded} took from the hand (the relay's thread only). */
  private int handedTaken;
  private final Thread thread;
  /**
   * Held by whoever claims, publishes or settles batches: the relay's thread for each round, or a committing thread
   * publishing its own commands ({@link #publishAtCommit}); {@link #inFlight} is only touched under it.
   */
  private final ReentrantLock rounds = new ReentrantLock();
  private final boolean fastPath;
  private volatile boolean running = true;
  private final CommandRefusals refusals;
  private final BrokerMessageLimit limit;
  private final Connection connection;
  /** Batches that let go of their rows with confirms still to come (the relay's thread only). */
  private final List<Detached> detached = new ArrayList<>();
  /** The broker's reason while it blocks the relay's connection (a memory or disk alarm); null otherwise. */
  private volatile String blockedBy;
  private final BlockedListener blockedListener = new BlockedListener() {
    @Override
    public void handleBlocked(String reason) {
      blockedBy = reason == null || reason.isBlank() ? "blocked" : reason;
      LOG.warn("The broker blocks the outbox relay's connection ({}): nothing is claimed until it lets go, and the"
          + " batches in flight let go of their rows", blockedBy);
      wakeUp();
    }

    @Override
    public void handleUnblocked() {
      unblocked();
    }
  };
  /** A connection that goes down forgets its block: a new one is blocked again only if the alarm still holds. */
  private final ShutdownListener unblockOnShutdown = cause -> unblocked();

  private void unblocked() {
    if (blockedBy != null) {
      LOG.info("The broker no longer blocks the outbox relay's connection");
    }
    blockedBy = null;
    wakeUp();
  }

  /** A relay without the fast path: its thread publishes every command. */
  public OutboxRelay(Database database, OutboxStore store, Connection connection, RuntimeMetrics metrics,
      int batchSize, Duration pollInterval) {
    this(database, store, connection, metrics, batchSize, pollInterval, CommandRefusals.NONE,
        new BrokerMessageLimit(), PublishTracing.NONE, false);
  }

  /**
   * @param refusals told after a commit that marked commands refused
   * @param limit where the broker's {@code max_message_size} is remembered once a refusal names it
   * @param tracing the span of each message sent
   * @param fastPath whether a committing thread publishes its own commands when the relay is free
   *     ({@link #publishAtCommit}); off, every commit hands them over to the relay's thread
   */
  public OutboxRelay(Database database, OutboxStore store, Connection connection, RuntimeMetrics metrics,
      int batchSize, Duration pollInterval, CommandRefusals refusals, BrokerMessageLimit limit,
      PublishTracing tracing, boolean fastPath) {
    this.fastPath = fastPath;
    this.database = database;
    this.store = store;
    this.connection = connection;
    this.probe = new ExchangeProbe(connection, this::brokerBlocked);
    this.metrics = metrics;
    this.batchSize = batchSize;
    this.pollInterval = pollInterval;
    this.refusals = refusals;
    this.limit = limit;
    this.tracing = tracing;
    this.gate = new ClaimGate(pollInterval.toNanos(), System::nanoTime);
    this.limited = new LimitedClaims(pollInterval.toNanos(), System::nanoTime);
    this.publisher = new ConfirmedPublisher(connection, "outbox-relay", CONFIRM_TIMEOUT);
    this.thread = new Thread(this::run, "baton-outbox-relay");
    connection.addBlockedListener(blockedListener);
    connection.addShutdownListener(unblockOnShutdown);
  }

  /** The commands with a maxInFlight as they are now (docs/design.md#concurrency-limits); any thread. */
  public void limits(List<LimitStore.Limit> limits) {
    this.limited.limits(limits);
    wakeUp();
  }

  /** Whether the broker blocks the relay's connection (a memory or disk alarm): {@code /healthz} and the gauge. */
  public boolean brokerBlocked() {
    return blockedBy != null;
  }

  public void start() {
    thread.start();
  }

  @Override
  public void committed(List<QueuedCommand> commands) {
    if (commands.isEmpty()) {
      return;
    }
    if (fastPath && publishAtCommit(commands)) {
      return;
    }
    if (handedCount.get() + commands.size() > MAX_HANDED) {
      commandsWritten(); // the search finds them
      return;
    }
    long now = System.currentTimeMillis();
    for (QueuedCommand command : commands) {
      handed.add(new Handed(command, now));
      limited.handedOver(command.message()); // its claim by id skips it if its command is limited
    }
    handedCount.addAndGet(commands.size());
    wakeUp();
  }

  @Override
  public void commandsWritten() {
    gate.written();
    wakeUp();
  }

  /**
   * The fast path (docs/design.md#runtime-semantics, "no lost commands"): when the relay's thread is not in a round,
   * nothing handed over waits before these commands, fewer than {@value #DEPTH} batches are in flight and none failed,
   * the committing thread claims its own commands by id and publishes them itself, as a batch the relay's thread then
   * finishes like its own (confirms awaited, rows deleted, committed in order); a commit of more than
   * {@value #MAX_AT_COMMIT} commands is left to the relay. It spares each command the wait for the
   * relay's thread to wake and take it from the hand: at light load most of the time between a commit and its
   * publish. Under load the relay is busy or its batches are in flight, and the commits hand over as before, so that
   * its batches stay large. The claim by id is the relay's own, so a cancel still waits for a command being published
   * and withdraws one that is not, and a row a pause or a limit holds is left to the relay.
   *
   * @return whether it took care of the commands (published, set aside, or already gone); false: hand them over
   */
  private boolean publishAtCommit(List<QueuedCommand> commands) {
    if (commands.size() > MAX_AT_COMMIT || handedCount.get() > 0 || !running || brokerBlocked()
        || !rounds.tryLock()) {
      return false;
    }
    Batch b = null;
    try {
      // Looked at again under the lock: the relay may have stopped meanwhile (nothing would finish the batch).
      if (!running || handedCount.get() > 0 || inFlight.size() >= DEPTH || anyFailure() || brokerBlocked()) {
        return false;
      }
      long now = System.currentTimeMillis();
      List<Handed> taken = new ArrayList<>(commands.size());
      for (QueuedCommand command : commands) {
        taken.add(new Handed(command, now));
        limited.handedOver(command.message()); // a limited command's row is not claimed here but apart, at once
      }
      b = new Batch(database.dataSource().getConnection());
      List<OutboxRow> rows = claimByIds(b.connection, taken, b.held);
      b.claimed = rows.size();
      if (rows.size() < commands.size()) {
        wakeUp(); // some are limited (or held, or gone): the relay's thread sees to those
      }
      if (rows.isEmpty()) {
        b.rollback(); // withdrawn already, or held by a pause or a limit: nothing to publish here
        return true;
      }
      b.generation = publisher.generation();
      publishInto(b, rows);
      metrics.outboxPublishedAtCommit(b.entries.size());
      if (b.entries.isEmpty()) {
        commit(b); // everything was set aside: nothing to wait for
      } else {
        inFlight.addLast(b); // its last confirm wakes the relay's thread, which finishes it
      }
      return true;
    } catch (SQLException | RuntimeException e) {
      if (b != null) {
        b.rollback(); // the rows are free again: handed over, the relay claims them (what was sent goes again)
      }
      LOG.debug("Publishing at commit failed, the relay takes the commands over: {}", e.toString());
      return false;
    } finally {
      rounds.unlock();
    }
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
    probe.close();
    connection.removeBlockedListener(blockedListener);
    connection.removeShutdownListener(unblockOnShutdown);
  }

  private void run() {
    checkOutcomeExchange();
    long backoff = 0;
    while (running) {
      try {
        long waitMs;
        rounds.lock();
        try {
          waitMs = round();
        } finally {
          rounds.unlock();
        }
        backoff = 0;
        if (waitMs > 0) {
          wakeups.tryAcquire(waitMs, TimeUnit.MILLISECONDS);
          wakeups.drainPermits();
        }
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
        rounds.lock();
        try {
          dropHanded();
          settleAll();
        } catch (Exception | Error again) {
          // The recovery itself may fail (an Error thrown again): the rows stay in the outbox, found by the next
          // search; the thread must not end here either.
          LOG.error("Outbox relay could not settle its batches after a failed round; they are sent again", again);
        } finally {
          rounds.unlock();
        }
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
    rounds.lock();
    try {
      settleAll();
    } finally {
      rounds.unlock();
    }
  }

  /**
   * One round, under {@link #rounds}: lets go of rows held too long, claims and publishes, finishes the oldest batch
   * once answered.
   *
   * @return how long to wait for a wake-up before the next round; 0: at once
   */
  private long round() throws SQLException, IOException, InterruptedException {
    // A batch with a failure is finished below instead: its culprit is looked for first.
    if (!inFlight.isEmpty() && (brokerBlocked() || heldTooLong(inFlight.peekFirst()) && !anyFailure())) {
      letGoOfAll(); // never hold row locks across a blocked publish: timers and cancels would wait for them
      return 0;
    }
    settleDetached();
    boolean more = fill();
    if (inFlight.size() >= DEPTH && handedCount.get() > 0 && !anyFailure() && !brokerBlocked()) {
      more |= extendNewest();
    }
    Batch oldest = inFlight.peekFirst();
    if (oldest != null && (oldest.answered() || anyFailure())) {
      if (!finish(inFlight.removeFirst(), true)) {
        throw new IOException("the broker did not answer for every command (see above)");
      }
      return 0; // refill at once: finished batches make room
    }
    if (more) {
      return 0;
    }
    // Until a batch's confirms are in or new commands are handed over or written, whichever comes first:
    // commands committed meanwhile are published at once, not after the batches before them are settled. A
    // batch in flight is looked at again when it has held its rows for long enough.
    // A limited command due soon shortens the wait, unless nothing could be claimed anyway (confirms wake it).
    boolean canClaim = !brokerBlocked() && inFlight.size() < DEPTH && !anyFailure();
    long waitMs = Math.max(1, canClaim ? limited.millisUntilDue(pollInterval.toMillis()) : pollInterval.toMillis());
    if (oldest != null) {
      waitMs = Math.max(1, Math.min(waitMs, HOLD_AT_MOST.toMillis() - oldest.heldMillis()));
    }
    return waitMs;
  }

  /**
   * Says at the start whether the instance outcome exchange exists (docs/message-contract.md#instance-outcomes). The
   * runtime declares nothing; the operator declares it when it starts. Until it exists, outcome events wait in the
   * outbox, set aside and retried like a command to a missing exchange: nothing is lost, and nothing else is held up.
   */
  private void checkOutcomeExchange() {
    String exchange = Names.instanceOutcomeExchange();
    try {
      if (!probe.exists(exchange)) {
        LOG.warn("Exchange {} does not exist: instance outcome events wait in the outbox until the operator declares"
            + " it (it does when it starts)", exchange);
      }
    } catch (RuntimeException e) {
      LOG.debug("Could not check exchange {} at the start: {}", exchange, e.toString());
    }
  }

  /**
   * Claims and publishes batches until {@link #DEPTH} are in flight, the outbox has nothing more due, or a batch in
   * flight has a failure (nothing newer is published before it is sorted out, so the outbox's order is kept).
   *
   * @return true when the last claim was full (more rows may be waiting)
   */
  private boolean fill() throws SQLException {
    boolean full = false;
    while (running && !brokerBlocked() && inFlight.size() < DEPTH && !anyFailure()
        && (handedCount.get() > 0 || gate.claimDue() || limited.anyDue())) {
      Batch b = claimAndPublish();
      if (b == null) {
        if (handedCount.get() > 0) {
          continue; // those handed over were gone already: the next ones
        }
        return false;
      }
      full = b.claimed >= batchSize || handedCount.get() > 0;
      if (b.entries.isEmpty()) {
        commit(b); // everything was set aside: nothing to wait for
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
      } else if (gate.claimDue()) {
        gate.claiming();
        rows = store.claim(c, batchSize);
        if (rows.size() >= batchSize) {
          gate.claimedFull();
        }
        b.claimed = rows.size();
      } else {
        rows = List.of();
      }
      if (rows.size() < batchSize && limited.anyDue()) {
        List<OutboxRow> within = limited.claim(c, batchSize - rows.size());
        if (!within.isEmpty()) {
          List<OutboxRow> all = new ArrayList<>(rows);
          all.addAll(within);
          all.sort(java.util.Comparator.comparingLong(OutboxRow::id)); // the outbox's order across commands
          rows = all;
          b.claimed += within.size();
        }
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
      Traced message;
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
      Entry entry = new Entry(row, message.message());
      b.entries.add(entry);
      if (!b.stopped) {
        // Only while the channel is the one the batch started on: after a channel error, the rest waits for its
        // turn instead of overtaking the rows that failed.
        metrics.hop(RuntimeMetrics.Hop.OUTBOX_WAIT,
            TimeUnit.MILLISECONDS.toNanos(claimedMillis - row.createdAt().toEpochMilli()));
        if (b.publishedNanos == 0) {
          b.publishedNanos = System.nanoTime();
        }
        entry.result = publisher.publishInGeneration(message.message(), b.generation);
        entry.result.whenComplete((r, failure) -> {
          if (r != null && r.confirmed()) { // on the connection's thread: a timer's record only
            metrics.hop(RuntimeMetrics.Hop.OUTBOX_CONFIRM, System.nanoTime() - claimedNanos);
          } else {
            message.span().setStatus(StatusCode.ERROR, r != null ? String.valueOf(r.status()) : failure.toString());
          }
          message.span().end();
        });
        published.add(entry.result);
        b.stopped = entry.failedAlready();
      } else {
        message.span().setStatus(StatusCode.ERROR, "not sent: the channel failed before it"); // sent again later
        message.span().end();
      }
    }
    // Their last confirm wakes the relay up, which may be waiting for new commands meanwhile.
    CompletableFuture.allOf(published.toArray(CompletableFuture[]::new)).whenComplete((done, failure) -> wakeUp());
    for (Map.Entry<String, List<Long>> e : missingExchanges.entrySet()) {
      setAside(b.connection, e.getValue(), e.getKey(), "exchange " + e.getKey() + " does not exist"
          + readyHint(e.getKey()), true);
    }
    if (!unreadable.isEmpty()) {
      refuse(b, unreadable, "(unreadable)", "the runtime refused the command: its headers cannot be read");
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
    return claimByIds(c, taken, held);
  }

  /**
   * Locks those of the commands that are still there, due and free to claim, in the transaction of {@code c}, and
   * adds them to {@code held}; the rows in their order. Those it holds already are left out.
   */
  private List<OutboxRow> claimByIds(java.sql.Connection c, List<Handed> taken, java.util.Set<Long> held)
      throws SQLException {
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
    commit(b);
    metrics.outboxPublished(outcomes.confirmed.size());
    return !outcomes.unknown;
  }

  /** Commits the batch's transaction; refusals it marked go to the engine once they are committed. */
  private void commit(Batch b) throws SQLException {
    b.commit();
    if (b.refused) {
      refusals.refused();
    }
  }

  /** Whether the batch has waited for its confirms, rows locked, for longer than {@link #HOLD_AT_MOST}. */
  private static boolean heldTooLong(Batch b) {
    return b != null && !b.answered() && b.heldMillis() >= HOLD_AT_MOST.toMillis();
  }

  /**
   * Every batch in flight lets go of its rows (the broker blocks publishers, or its confirms are slow): what the
   * broker answered is recorded as {@link #finish} would, the rows whose confirm is still to come are committed in
   * doubt and not due for {@link #IN_DOUBT_FOR}, their confirms awaited apart ({@link #settleDetached}); rows not
   * sent, and those a channel error failed, are left as they were, for a later round.
   */
  private void letGoOfAll() throws SQLException {
    gate.failed(); // rows not sent stay due: the next claim searches for them
    int waiting = 0;
    Batch b;
    while ((b = inFlight.pollFirst()) != null) {
      try {
        waiting += letGoOf(b);
      } catch (SQLException | RuntimeException e) {
        b.rollback(); // the rows stay as they were: sent again, with the same message ids
        throw e;
      }
    }
    if (waiting > 0) {
      LOG.warn("{} command(s) published without a confirm yet{}: their rows are released, in doubt, and their"
          + " confirms awaited apart", waiting, brokerBlocked() ? " while the broker blocks publishers (" + blockedBy
          + ")" : " after " + HOLD_AT_MOST.toMillis() + " ms");
    }
  }

  /** {@link #letGoOfAll} after a failed round: the rows of a batch that cannot be written stay as they were. */
  private void letGoOfAllQuietly() {
    try {
      letGoOfAll();
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Could not release the batches in flight, their commands are sent again: {}", e.toString());
    }
  }

  /** @return how many of its commands still wait for their confirm */
  private int letGoOf(Batch b) throws SQLException {
    Outcomes outcomes = new Outcomes();
    List<Entry> waiting = new ArrayList<>();
    for (Entry e : b.entries) {
      if (e.result == null) {
        continue; // never sent: its row stays as it was
      }
      if (!e.result.isDone()) {
        waiting.add(e);
        continue;
      }
      PublishResult r = e.result.join();
      if (r.failure() != Failure.CHANNEL_ERROR) { // which one caused a channel error is found out in a later round
        outcomes.add(e, r);
      }
    }
    outcomes.write(b);
    store.inDoubt(b.connection, ids(waiting), IN_DOUBT_FOR);
    commit(b);
    metrics.outboxPublished(outcomes.confirmed.size());
    if (!waiting.isEmpty()) {
      detached.add(new Detached(waiting));
    }
    return waiting.size();
  }

  /**
   * The batches that let go of their rows, once the broker has answered for all of a batch (confirms come as soon as
   * it reads the connection again; the publisher fails them after its confirm timeout): a confirmed row is deleted,
   * a refused one marked, one whose confirm never came made due again. In a short transaction of its own that waits
   * briefly for row locks: a cancel may be withdrawing those rows meanwhile, and may itself wait for a batch in flight
   * that only this thread finishes. A batch whose rows are busy is tried again at the next round.
   */
  private void settleDetached() throws SQLException {
    for (java.util.Iterator<Detached> it = detached.iterator(); it.hasNext(); ) {
      Detached d = it.next();
      if (!d.answered()) {
        continue;
      }
      Outcomes outcomes = new Outcomes();
      List<Long> unanswered = new ArrayList<>();
      for (Entry e : d.entries()) {
        PublishResult r = e.result.join();
        if (r.confirmed() || r.status() != PublishResult.Status.FAILED || r.failure() == Failure.REJECTED_BY_CLIENT) {
          outcomes.add(e, r);
        } else {
          unanswered.add(e.row.id()); // no confirm, or a channel error that says not which: sent again
        }
      }
      Batch b = new Batch(database.dataSource().getConnection());
      try {
        try (java.sql.Statement st = b.connection.createStatement()) {
          st.execute("SET LOCAL lock_timeout = '200ms'");
        }
        outcomes.write(b);
        store.dueNow(b.connection, unanswered);
        commit(b);
        if (!unanswered.isEmpty()) {
          gate.failed(); // due again: the next claim searches for them
        }
      } catch (SQLException e) {
        b.rollback();
        if ("55P03".equals(e.getSQLState())) { // lock_not_available: rows busy, tried again next round
          continue;
        }
        throw e;
      } catch (RuntimeException e) {
        b.rollback();
        throw e;
      }
      metrics.outboxPublished(outcomes.confirmed.size());
      it.remove();
    }
  }

  private static List<Long> ids(List<Entry> entries) {
    List<Long> ids = new ArrayList<>(entries.size());
    for (Entry e : entries) {
      ids.add(e.row.id());
    }
    return ids;
  }

  /** Commands published and then let go of, awaiting the broker's answers. */
  private record Detached(List<Entry> entries) {

    boolean answered() {
      return entries.stream().allMatch(e -> e.result.isDone());
    }
  }

  /** What a batch's rows came to; written in the batch's transaction. */
  private final class Outcomes {
    final List<Long> confirmed = new ArrayList<>();
    final Map<String, List<Long>> unroutable = new LinkedHashMap<>();
    final Map<String, List<Long>> refused = new LinkedHashMap<>();
    final Map<String, List<Long>> missingExchange = new LinkedHashMap<>();
    final Map<String, List<Long>> notPermitted = new LinkedHashMap<>();
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
          if (r.failure() == Failure.CHANNEL_ERROR && r.detail().startsWith("404")) {
            // Deleted since the probe found it: as a missing exchange, set aside (its WorkerService may come back).
            missingExchange.computeIfAbsent(m.exchange(), k -> new ArrayList<>()).add(e.row.id());
          } else if (r.failure() == Failure.CHANNEL_ERROR && r.detail().startsWith("403") && m.isInstanceOutcome()) {
            // A runtime newer than its user's permissions (the operator grants the outcome exchange at its next
            // pass): the instance has ended, nothing waits for the outcome, so it waits too rather than be dropped.
            notPermitted.computeIfAbsent(m.exchange(), k -> new ArrayList<>()).add(e.row.id());
          } else if (r.aboutTheMessage()) {
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
        String error = "no queue bound to " + exchangeAndKey[1] + " on " + exchangeAndKey[0];
        java.util.Set<Long> overdue = store.deferUnroutable(b.connection, e.getValue(), error
            + readyHint(exchangeAndKey[0]), UNROUTABLE_REFUSED_AFTER);
        metrics.outboxUnroutable(exchangeAndKey[0], e.getValue().size());
        if (overdue.isEmpty()) {
          LOG.warn("{} command(s) kept in the outbox and retried later: {}{}", e.getValue().size(), error,
              readyHint(exchangeAndKey[0]));
        } else {
          refuse(b, overdue, exchangeAndKey[0], "the broker could not route the command for "
              + UNROUTABLE_REFUSED_AFTER.toSeconds() + " s: " + error + readyHint(exchangeAndKey[0]));
        }
      }
      for (Map.Entry<String, List<Long>> e : refused.entrySet()) {
        String[] exchangeAndReason = e.getKey().split(" ", 2);
        limit.learnFrom(exchangeAndReason[1]);
        refuse(b, e.getValue(), exchangeAndReason[0], exchangeAndReason[1]);
      }
      for (Map.Entry<String, List<Long>> e : missingExchange.entrySet()) {
        probe.forget();
        setAside(b.connection, e.getValue(), e.getKey(), "exchange " + e.getKey() + " does not exist"
            + readyHint(e.getKey()), true);
      }
      for (Map.Entry<String, List<Long>> e : notPermitted.entrySet()) {
        setAside(b.connection, e.getValue(), e.getKey(), "the runtime's broker user may not write " + e.getKey()
            + " (yet): the operator grants it with TopologyPlanner.orchestratorPermissions()", false);
      }
      store.confirmed(b.connection, confirmed);
    }
  }

  /** After a failed round: each batch in flight keeps what the broker confirmed (deleted) and leaves the rest. */
  private void settleAll() {
    if (brokerBlocked()) {
      letGoOfAllQuietly(); // no waiting for confirms that will not come before the alarm ends
    }
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

  /**
   * Marks rows refused with the reason, in the batch's transaction: never claimed again, handed to the engine once the
   * batch has committed.
   */
  private void refuse(Batch b, java.util.Collection<Long> ids, String exchange, String reason) throws SQLException {
    store.refuse(b.connection, ids, reason);
    b.refused = true;
    metrics.outboxRefused(exchange, ids.size());
    if (Names.instanceOutcomeExchange().equals(exchange)) {
      // An ended instance has nothing left to fail: the refused outcome is lost, which a person must hear of.
      LOG.error("{} instance outcome event(s) refused by the broker and dropped: {}", ids.size(), reason);
    } else {
      LOG.warn("{} command(s) refused, their attempts fail: {}", ids.size(), reason);
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
    if (Names.instanceOutcomeExchange().equals(exchange)) {
      return " — the operator declares it at its start: is it running on this vhost?";
    }
    return " — is WorkerService " + serviceOf(exchange) + " Ready?";
  }

  /** The service of a command exchange {@code S.command.topic.ex} (names come from {@link Names}). */
  static String serviceOf(String exchange) {
    String suffix = Names.commandExchange("");
    return exchange.endsWith(suffix) ? exchange.substring(0, exchange.length() - suffix.length()) : exchange;
  }

  /** A message about to be sent, in the span of its sending. */
  private record Traced(OutboundMessage message, Span span) {}

  private Traced message(OutboxRow row) {
    OutboxMessage m = row.message();
    Map<String, Object> headers;
    try {
      headers = HEADERS.readValue(m.headersJson());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    Span span = tracing.publishing(new MessagingSpans.Message(m.exchange(), m.routingKey(), m.messageId().toString(),
        m.correlationId(), m.body().length), headers);
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
        .messageId(m.messageId().toString())
        .correlationId(m.correlationId())
        .contentType(Headers.CONTENT_TYPE_JSON)
        .deliveryMode(2)
        .timestamp(new Date(row.createdAt().toEpochMilli()))
        .headers(headers)
        .build();
    // Commands are mandatory: one no queue takes is returned and retried (its WorkerService may not be Ready yet). An
    // outcome event is not: one no subscriber is bound to is simply not routed, and that is no failure.
    boolean outcome = m.isInstanceOutcome();
    return new Traced(new OutboundMessage(m.exchange(), m.routingKey(), !outcome, props, m.body(),
        (outcome ? "outcome " : "command ") + m.messageId()), span);
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
    /** Its transaction marked commands refused: the engine is told once it has committed. */
    boolean refused;
    /** When its first message was published ({@link System#nanoTime}); 0 before. */
    long publishedNanos;
    private boolean closed;

    Batch(java.sql.Connection connection) {
      this.connection = connection;
    }

    /** How long it has held its rows since it published. */
    long heldMillis() {
      return publishedNanos == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - publishedNanos);
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
