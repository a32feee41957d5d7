package dev.baton.runtime.relay;

import com.rabbitmq.client.Connection;
import dev.baton.contract.Names;
import dev.baton.messaging.ConfirmedPublisher;
import dev.baton.runtime.engine.CommandRefusals;
import dev.baton.runtime.engine.OutboxSignal;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.QueuedCommand;
import dev.baton.runtime.tracing.PublishTracing;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox (docs/design.md#runtime-semantics, "no lost commands"), apart from the step loop. The commits
 * that wrote commands hand them over ({@link #committed}): the relay claims their rows by id and publishes the
 * messages it was handed, without searching the outbox or reading them back; when the relay is free, the committing
 * thread does that itself ({@link AtCommitPublisher}). It also searches the outbox, oldest
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
 * ran) and not due for {@link #IN_DOUBT_FOR}, and their confirms are awaited apart ({@link DetachedBatches}): a confirm
 * deletes its row then, a confirm that never comes makes it due again (sent again, same message id). A batch whose
 * confirms take longer than {@link #HOLD_AT_MOST} lets go of its rows the same way, notification or not. Timers,
 * cancels and lanes, which withdraw or write rows, never wait long for the relay's.
 *
 * <p>This class is the relay's thread and its rounds. The rest by role: {@link HandedCommands} (the commands in
 * hand and their claim by id), {@link AtCommitPublisher} (the fast path), {@link BatchPublisher} (publishing a
 * batch's rows), {@link InFlightBatch}, {@link BatchSettler} (finishing a batch, the culprit of a channel error),
 * {@link ConfirmOutcomes} and {@link OutcomeRecorder} (what the rows came to, written in the batch's transaction),
 * {@link DetachedBatches} (letting go of rows, confirms awaited apart), {@link BrokerBlock}; {@link RelayState} is
 * what the relay's thread shares with the committing threads.
 */
public final class OutboxRelay implements OutboxSignal, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(15);
  /** Beyond the publisher's own confirm timeout, which completes every future: only a safety net. */
  static final long WAIT_MARGIN_MS = 5_000;
  /** Batches published and awaiting their confirms at once (each holds one database connection meanwhile). */
  static final int DEPTH = 3;
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
  private final int batchSize;
  private final Duration pollInterval;
  /** The rows of commands with a maxInFlight: claimed within their capacity, apart from the others. */
  private final LimitedClaims limited;
  private final ClaimGate gate;
  private final RelayState state;
  private final BatchPublisher publishing;
  private final OutcomeRecorder recorder;
  private final DetachedBatches detached;
  private final BatchSettler settler;
  private final AtCommitPublisher atCommit;
  private final Thread thread;
  private final boolean fastPath;
  private final Connection connection;

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
   *     ({@link AtCommitPublisher}); off, every commit hands them over to the relay's thread
   */
  public OutboxRelay(Database database, OutboxStore store, Connection connection, RuntimeMetrics metrics,
      int batchSize, Duration pollInterval, CommandRefusals refusals, BrokerMessageLimit limit,
      PublishTracing tracing, boolean fastPath) {
    this.fastPath = fastPath;
    this.database = database;
    this.store = store;
    this.connection = connection;
    this.probe = new ExchangeProbe(connection, this::brokerBlocked);
    this.batchSize = batchSize;
    this.pollInterval = pollInterval;
    this.gate = new ClaimGate(pollInterval.toNanos(), System::nanoTime);
    this.limited = new LimitedClaims(pollInterval.toNanos(), System::nanoTime);
    ConfirmedPublisher publisher = new ConfirmedPublisher(connection, "outbox-relay", CONFIRM_TIMEOUT);
    this.state = new RelayState(new HandedCommands(store, limited), publisher);
    this.recorder = new OutcomeRecorder(store, metrics, refusals, limit, probe);
    this.publishing = new BatchPublisher(state, probe, metrics, tracing, recorder);
    this.detached = new DetachedBatches(state, database, store, gate, metrics, recorder);
    this.settler = new BatchSettler(state, detached, metrics, recorder);
    this.atCommit = new AtCommitPublisher(state, database, limited, publishing, metrics, recorder);
    this.thread = new Thread(this::run, "baton-outbox-relay");
    state.block.listenTo(connection);
  }

  /** The commands with a maxInFlight as they are now (docs/design.md#concurrency-limits); any thread. */
  public void limits(List<LimitStore.Limit> limits) {
    this.limited.limits(limits);
    state.wakeUp();
  }

  /** Whether the broker blocks the relay's connection (a memory or disk alarm): {@code /healthz} and the gauge. */
  public boolean brokerBlocked() {
    return state.brokerBlocked();
  }

  public void start() {
    thread.start();
  }

  @Override
  public void committed(List<QueuedCommand> commands) {
    if (commands.isEmpty()) {
      return;
    }
    if (fastPath && atCommit.tryPublish(commands)) {
      return;
    }
    if (!state.handed.handOver(commands)) {
      commandsWritten(); // the search finds them
      return;
    }
    state.wakeUp();
  }

  @Override
  public void commandsWritten() {
    gate.written();
    state.wakeUp();
  }

  /** Stops after the batches in flight; what is left stays in the outbox for the next start (or another replica). */
  @Override
  public void close() {
    state.stop();
    try {
      thread.join(CONFIRM_TIMEOUT.toMillis() + WAIT_MARGIN_MS);
      if (thread.isAlive()) {
        thread.interrupt();
        thread.join(WAIT_MARGIN_MS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    state.publisher.close();
    probe.close();
    state.block.stopListening(connection);
  }

  private void run() {
    checkOutcomeExchange();
    long backoff = 0;
    while (state.running()) {
      try {
        long waitMs;
        state.rounds.lock();
        try {
          waitMs = round();
        } finally {
          state.rounds.unlock();
        }
        backoff = 0;
        if (waitMs > 0) {
          state.awaitWakeUp(waitMs);
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
        state.rounds.lock();
        try {
          state.handed.drop();
          settler.settleAll();
        } catch (Exception | Error again) {
          // The recovery itself may fail (an Error thrown again): the rows stay in the outbox, found by the next
          // search; the thread must not end here either.
          LOG.error("Outbox relay could not settle its batches after a failed round; they are sent again", again);
        } finally {
          state.rounds.unlock();
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
    state.rounds.lock();
    try {
      settler.settleAll();
    } finally {
      state.rounds.unlock();
    }
  }

  /**
   * One round, under {@link RelayState#rounds}: lets go of rows held too long, claims and publishes, finishes the
   * oldest batch once answered.
   *
   * @return how long to wait for a wake-up before the next round; 0: at once
   */
  private long round() throws SQLException, IOException, InterruptedException {
    // A batch with a failure is finished below instead: its culprit is looked for first.
    if (!state.inFlight.isEmpty()
        && (state.brokerBlocked() || state.inFlight.peekFirst().heldTooLong() && !state.anyFailure())) {
      detached.letGoOfAll(); // never hold row locks across a blocked publish: timers and cancels would wait for them
      return 0;
    }
    detached.settle();
    boolean more = fill();
    if (state.inFlight.size() >= DEPTH && state.handed.count() > 0 && !state.anyFailure() && !state.brokerBlocked()) {
      more |= extendNewest();
    }
    InFlightBatch oldest = state.inFlight.peekFirst();
    if (oldest != null && (oldest.answered() || state.anyFailure())) {
      if (!settler.finish(state.inFlight.removeFirst(), true)) {
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
    boolean canClaim = !state.brokerBlocked() && state.inFlight.size() < DEPTH && !state.anyFailure();
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
    while (state.running() && !state.brokerBlocked() && state.inFlight.size() < DEPTH && !state.anyFailure()
        && (state.handed.count() > 0 || gate.claimDue() || limited.anyDue())) {
      InFlightBatch b = claimAndPublish();
      if (b == null) {
        if (state.handed.count() > 0) {
          continue; // those handed over were gone already: the next ones
        }
        return false;
      }
      full = b.claimed >= batchSize || state.handed.count() > 0;
      if (b.entries.isEmpty()) {
        recorder.commit(b); // everything was set aside: nothing to wait for
      } else {
        state.inFlight.addLast(b);
      }
      if (!full) {
        return false;
      }
    }
    return full;
  }

  /**
   * One batch: open a transaction, claim (the commands in hand first, else by searching), publish in order; null when
   * nothing is due.
   */
  private InFlightBatch claimAndPublish() throws SQLException {
    java.sql.Connection c = database.dataSource().getConnection();
    InFlightBatch b = new InFlightBatch(c);
    try {
      List<OutboxRow> rows;
      if (state.handed.count() > 0) {
        rows = state.handed.claimNext(c, batchSize, b.held);
        b.claimed = state.handed.lastTaken();
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
          all.sort(Comparator.comparingLong(OutboxRow::id)); // the outbox's order across commands
          rows = all;
          b.claimed += within.size();
        }
      }
      if (rows.isEmpty()) {
        b.rollback();
        return null;
      }
      b.generation = state.publisher.generation();
      publishing.publishInto(b, rows);
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
    InFlightBatch b = state.inFlight.peekLast();
    int room = b == null ? 0 : batchSize - b.entries.size();
    if (room <= 0 || b.stopped || b.generation != state.publisher.generation()) {
      return false;
    }
    List<OutboxRow> rows = state.handed.claimNext(b.connection, room, b.held);
    b.claimed += state.handed.lastTaken();
    if (rows.isEmpty()) {
      return state.handed.lastTaken() > 0;
    }
    publishing.publishInto(b, rows);
    return true;
  }
}
