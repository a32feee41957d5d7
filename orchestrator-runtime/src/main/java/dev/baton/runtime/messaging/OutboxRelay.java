package dev.baton.runtime.messaging;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.runtime.engine.OutboxSignal;
import dev.baton.runtime.json.Json;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.OutboxStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox (docs/design.md#runtime-semantics, "no lost commands"), apart from the step loop: woken after every commit that
 * wrote commands, and by a periodic poll (for rows of other replicas and rows set aside).
 *
 * <p>Each batch is its own transaction: it claims rows with {@code FOR UPDATE SKIP LOCKED} (replicas share the work),
 * publishes them with the mandatory flag, and keeps the rows locked until the broker has confirmed every message;
 * then it deletes what was confirmed, sets aside what came back unroutable, and commits. A crash before the commit
 * re-sends the batch with the same message ids (workers dedupe); nothing is dropped.
 *
 * <p>Confirms are asynchronous and batches are pipelined: up to {@value #DEPTH} batches are published and waiting
 * for their confirms at once, each on its own database connection (its rows stay locked, so the next claim skips
 * them, as another replica's would). The relay thread waits only for the oldest batch, while the broker is already
 * working on the next ones; batches finish in the order they were published.
 */
public final class OutboxRelay implements OutboxSignal, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  private static final long CONFIRM_TIMEOUT_MS = 15_000;
  /** Batches published and awaiting their confirms at once (each holds one database connection meanwhile). */
  static final int DEPTH = 3;
  private static final ObjectReader HEADERS = Json.MAPPER.readerFor(LinkedHashMap.class);

  private final Database database;
  private final OutboxStore store;
  private final Connection connection;
  private final ExchangeProbe probe;
  private final RuntimeMetrics metrics;
  private final int batchSize;
  private final Duration pollInterval;
  private final Semaphore wakeups = new Semaphore(0);
  private final Set<String> returnedIds = ConcurrentHashMap.newKeySet();
  private final ArrayDeque<Batch> inFlight = new ArrayDeque<>();
  /** Publish sequence number → its batch; guarded by {@code confirms}. */
  private final TreeMap<Long, Batch> unconfirmed = new TreeMap<>();
  private final Object confirms = new Object();
  private final Thread thread;
  private volatile boolean running = true;
  private Channel channel;
  /** {@link System#nanoTime()} when the channel was first seen closed, 0 while it is open. */
  private long channelClosedSince;

  public OutboxRelay(Database database, OutboxStore store, Connection connection, RuntimeMetrics metrics,
      int batchSize, Duration pollInterval) {
    this.database = database;
    this.store = store;
    this.connection = connection;
    this.probe = new ExchangeProbe(connection);
    this.metrics = metrics;
    this.batchSize = batchSize;
    this.pollInterval = pollInterval;
    this.thread = new Thread(this::run, "baton-outbox-relay");
  }

  public void start() {
    thread.start();
  }

  @Override
  public void commandsWritten() {
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
      thread.join(CONFIRM_TIMEOUT_MS + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    abandonAll();
    closeChannel();
  }

  private void run() {
    long backoff = 0;
    while (running) {
      try {
        boolean more = fill();
        if (!inFlight.isEmpty()) {
          finish(inFlight.peekFirst());
          inFlight.removeFirst();
          backoff = 0;
          continue; // refill at once: confirmed batches make room
        }
        backoff = 0;
        if (more) {
          continue;
        }
        wakeups.tryAcquire(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
        wakeups.drainPermits();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abandonAll();
        return;
      } catch (Exception e) {
        abandonAll();
        backoff = Math.min(Math.max(backoff * 2, 200), 5_000);
        LOG.warn("Outbox relay round failed, the commands stay in the outbox and are sent again in {} ms: {}",
            backoff, e.toString());
        dropChannelAfterFailure();
        probe.forget();
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
    abandonAll();
  }

  /**
   * Claims and publishes batches until {@link #DEPTH} are in flight or the outbox has nothing more due.
   *
   * @return true when the last claim was full (more rows may be waiting)
   */
  private boolean fill() throws SQLException, IOException {
    boolean full = false;
    while (running && inFlight.size() < DEPTH) {
      Batch b = claimAndPublish();
      if (b == null) {
        return false;
      }
      full = b.claimed >= batchSize;
      if (b.rows.isEmpty()) {
        b.commit(); // everything was set aside (missing exchanges): nothing to wait for
      } else {
        inFlight.addLast(b);
      }
      if (!full) {
        return false;
      }
    }
    return full;
  }

  /** One batch: open a transaction, claim, publish; null when nothing is due. */
  private Batch claimAndPublish() throws SQLException, IOException {
    java.sql.Connection c = database.dataSource().getConnection();
    Batch b = new Batch(c);
    try {
      List<OutboxRow> rows = store.claim(c, batchSize);
      if (rows.isEmpty()) {
        b.rollback();
        return null;
      }
      b.claimed = rows.size();
      Map<String, List<Long>> missingExchanges = new LinkedHashMap<>();
      Map<String, Boolean> exists = new HashMap<>();
      for (OutboxRow row : rows) {
        String exchange = row.message().exchange();
        if (exists.computeIfAbsent(exchange, probe::exists)) {
          b.rows.add(row);
        } else {
          missingExchanges.computeIfAbsent(exchange, k -> new ArrayList<>()).add(row.id());
        }
      }
      for (Map.Entry<String, List<Long>> e : missingExchanges.entrySet()) {
        setAside(c, e.getValue(), e.getKey(), "exchange " + e.getKey() + " does not exist");
      }
      if (!b.rows.isEmpty()) {
        publish(b);
      }
      return b;
    } catch (SQLException | IOException | RuntimeException e) {
      b.rollback();
      throw e;
    }
  }

  private void publish(Batch b) throws IOException {
    Channel ch = channel();
    synchronized (confirms) {
      b.outstanding = b.rows.size();
    }
    for (OutboxRow row : b.rows) {
      OutboxMessage m = row.message();
      AMQP.BasicProperties props = properties(row);
      // Only this thread publishes on the channel; the lock is never held while publishing, so the connection's
      // thread delivering confirms never waits on a blocked publish.
      synchronized (confirms) {
        unconfirmed.put(ch.getNextPublishSeqNo(), b);
      }
      ch.basicPublish(m.exchange(), m.routingKey(), true, props, m.body());
    }
  }

  /** Waits for the batch's confirms, then deletes what the broker took, sets aside what it returned, and commits. */
  private void finish(Batch b) throws SQLException, IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONFIRM_TIMEOUT_MS);
    synchronized (confirms) {
      while (b.outstanding > 0 && !b.failed) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          throw new IOException("no confirm from the broker within " + CONFIRM_TIMEOUT_MS + " ms");
        }
        confirms.wait(left);
      }
    }
    if (b.failed) {
      throw new IOException(b.failure);
    }
    List<Long> confirmed = new ArrayList<>(b.rows.size());
    Map<String, List<Long>> unroutable = new LinkedHashMap<>();
    for (OutboxRow row : b.rows) {
      OutboxMessage m = row.message();
      if (returnedIds.remove(m.messageId().toString())) {
        unroutable.computeIfAbsent(m.exchange() + " " + m.routingKey(), k -> new ArrayList<>()).add(row.id());
      } else {
        confirmed.add(row.id());
      }
    }
    for (Map.Entry<String, List<Long>> e : unroutable.entrySet()) {
      String[] exchangeAndKey = e.getKey().split(" ", 2);
      setAside(b.connection, e.getValue(), exchangeAndKey[0],
          "no queue bound to " + exchangeAndKey[1] + " on " + exchangeAndKey[0]);
    }
    store.delete(b.connection, confirmed);
    b.commit();
    metrics.outboxPublished(confirmed.size());
  }

  private void setAside(java.sql.Connection c, List<Long> ids, String exchange, String problem)
      throws SQLException {
    String reason = problem + " — is WorkerService " + serviceOf(exchange) + " Ready?";
    store.defer(c, ids, reason);
    metrics.outboxUnroutable(exchange, ids.size());
    LOG.warn("{} command(s) kept in the outbox and retried later: {}", ids.size(), reason);
  }

  /** The service of a command exchange {@code S.command.topic.ex} (names come from {@link Names}). */
  static String serviceOf(String exchange) {
    String suffix = Names.commandExchange("");
    return exchange.endsWith(suffix) ? exchange.substring(0, exchange.length() - suffix.length()) : exchange;
  }

  private static AMQP.BasicProperties properties(OutboxRow row) {
    OutboxMessage m = row.message();
    Map<String, Object> headers;
    try {
      headers = HEADERS.readValue(m.headersJson());
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(m.messageId().toString())
        .correlationId(m.correlationId())
        .contentType(Headers.CONTENT_TYPE_JSON)
        .deliveryMode(2)
        .timestamp(new Date(row.createdAt().toEpochMilli()))
        .headers(headers)
        .build();
  }

  private Channel channel() throws IOException {
    channelClosedSince = RecoveringChannels.closedSince(channel, channelClosedSince);
    if (RecoveringChannels.needsReplacing(channel, channelClosedSince)) {
      RecoveringChannels.discard(channel);
      channelClosedSince = 0;
      Channel ch = connection.createChannel();
      ch.confirmSelect();
      ch.addReturnListener(r -> {
        if (r.getProperties().getMessageId() != null) {
          returnedIds.add(r.getProperties().getMessageId());
        }
      });
      ch.addConfirmListener(new ConfirmListener() {
        @Override
        public void handleAck(long seq, boolean multiple) {
          confirmed(seq, multiple, true);
        }

        @Override
        public void handleNack(long seq, boolean multiple) {
          confirmed(seq, multiple, false);
        }
      });
      ch.addShutdownListener(cause -> failAll("the channel closed before the broker confirmed: " + cause.getMessage()));
      synchronized (confirms) {
        unconfirmed.clear(); // sequence numbers start again on a new channel
      }
      channel = ch;
    }
    return channel;
  }

  /** On the connection's thread: count the confirms down per batch and wake the relay thread. */
  private void confirmed(long seq, boolean multiple, boolean ok) {
    synchronized (confirms) {
      Map<Long, Batch> done = multiple ? unconfirmed.headMap(seq, true) : unconfirmed.subMap(seq, true, seq, true);
      for (Batch b : done.values()) {
        b.outstanding--;
        if (!ok) {
          b.failed = true;
          b.failure = "the broker refused (nacked) a command of the batch";
        }
      }
      done.clear();
      confirms.notifyAll();
    }
  }

  private void failAll(String why) {
    synchronized (confirms) {
      for (Batch b : unconfirmed.values()) {
        b.failed = true;
        b.failure = why;
      }
      unconfirmed.clear();
      confirms.notifyAll();
    }
  }

  /** Rolls back every batch in flight: their rows stay in the outbox and are sent again (same message ids). */
  private void abandonAll() {
    Batch b;
    while ((b = inFlight.pollFirst()) != null) {
      b.rollback();
    }
    synchronized (confirms) {
      unconfirmed.clear();
    }
  }

  /** On stop: closes the channel for good (also when closed already: then it is only taken off recovery). */
  private void closeChannel() {
    Channel ch = channel;
    channel = null;
    if (ch != null && ch.isOpen()) {
      try {
        ch.close();
      } catch (IOException | TimeoutException | RuntimeException ignored) {
        // stopping anyway
      }
    } else {
      RecoveringChannels.discard(ch);
    }
  }

  /**
   * After a failed round: an open channel is closed (its confirms can no longer be trusted) and a fresh one opened
   * next round; a closed one is kept, so that {@link #channel()} waits for the connection's automatic recovery to
   * reopen it instead of adding a second channel next to the recovered one (one more idle channel per outage).
   */
  private void dropChannelAfterFailure() {
    if (channel != null && channel.isOpen()) {
      closeChannel();
    }
  }

  /** Claimed rows on their own transaction, published, waiting for their confirms. */
  private static final class Batch {
    final java.sql.Connection connection;
    final List<OutboxRow> rows = new ArrayList<>();
    int claimed;
    /** Guarded by the relay's {@code confirms} lock. */
    int outstanding;
    boolean failed;
    String failure;
    private boolean closed;

    Batch(java.sql.Connection connection) {
      this.connection = connection;
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
