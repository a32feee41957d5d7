package dev.baton.runtime.messaging;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox (DESIGN.md §5, "no lost commands"), apart from the step loop: woken after every commit that
 * wrote commands, and by a periodic poll (for rows of other replicas and rows set aside). Each round claims a batch
 * with {@code FOR UPDATE SKIP LOCKED} (replicas share the work), publishes it with the mandatory flag, waits for the
 * broker's confirms once for the whole batch, deletes what was confirmed and commits. A crash before the commit
 * re-sends the batch with the same message ids (workers dedupe); nothing is dropped. A command the broker cannot
 * route stays in the outbox with the reason and is tried again later with backoff.
 */
public final class OutboxRelay implements OutboxSignal, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  private static final long CONFIRM_TIMEOUT_MS = 15_000;
  private static final TypeReference<LinkedHashMap<String, Object>> HEADERS = new TypeReference<>() {};

  private final Database database;
  private final OutboxStore store;
  private final Connection connection;
  private final ExchangeProbe probe;
  private final RuntimeMetrics metrics;
  private final int batchSize;
  private final Duration pollInterval;
  private final Semaphore wakeups = new Semaphore(0);
  private final Set<String> returnedIds = ConcurrentHashMap.newKeySet();
  private final Thread thread;
  private volatile boolean running = true;
  private Channel channel;

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

  /** Stops after the round in flight; what is left stays in the outbox for the next start (or another replica). */
  @Override
  public void close() {
    running = false;
    wakeups.release();
    try {
      thread.join(CONFIRM_TIMEOUT_MS + 5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    closeChannel();
  }

  private void run() {
    long backoff = 0;
    while (running) {
      try {
        int handled = relayOnce();
        backoff = 0;
        if (handled >= batchSize) {
          continue; // more may be waiting
        }
        wakeups.tryAcquire(pollInterval.toMillis(), TimeUnit.MILLISECONDS);
        wakeups.drainPermits();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        backoff = Math.min(Math.max(backoff * 2, 200), 5_000);
        LOG.warn("Outbox relay round failed, the commands stay in the outbox and are sent again in {} ms: {}",
            backoff, e.toString());
        closeChannel();
        probe.forget();
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** One round: claim, publish, confirm, delete, commit. */
  int relayOnce() throws java.sql.SQLException {
    return database.inTransaction(c -> {
      List<OutboxRow> rows = store.claim(c, batchSize);
      if (rows.isEmpty()) {
        return 0;
      }
      Map<String, List<Long>> missingExchanges = new LinkedHashMap<>();
      List<OutboxRow> routable = new ArrayList<>(rows.size());
      Map<String, Boolean> exists = new HashMap<>();
      for (OutboxRow row : rows) {
        String exchange = row.message().exchange();
        if (exists.computeIfAbsent(exchange, probe::exists)) {
          routable.add(row);
        } else {
          missingExchanges.computeIfAbsent(exchange, k -> new ArrayList<>()).add(row.id());
        }
      }
      for (Map.Entry<String, List<Long>> e : missingExchanges.entrySet()) {
        setAside(c, e.getValue(), e.getKey(), "exchange " + e.getKey() + " does not exist");
      }
      List<Long> confirmed = publish(c, routable);
      store.delete(c, confirmed);
      metrics.outboxPublished(confirmed.size());
      return rows.size();
    });
  }

  /** Publishes and waits once for all confirms; returns the ids of the rows the broker took and routed. */
  private List<Long> publish(java.sql.Connection c, List<OutboxRow> rows) throws java.sql.SQLException {
    if (rows.isEmpty()) {
      return List.of();
    }
    try {
      Channel ch = channel();
      returnedIds.clear();
      for (OutboxRow row : rows) {
        OutboxMessage m = row.message();
        ch.basicPublish(m.exchange(), m.routingKey(), true, properties(row), m.body());
      }
      if (!ch.waitForConfirms(CONFIRM_TIMEOUT_MS)) {
        throw new IOException("the broker refused (nacked) a command of the batch");
      }
    } catch (IOException | TimeoutException e) {
      throw new UncheckedIOException(new IOException("publishing " + rows.size() + " command(s) failed", e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UncheckedIOException(new IOException("interrupted while waiting for confirms"));
    }
    List<Long> confirmed = new ArrayList<>(rows.size());
    Map<String, List<Long>> unroutable = new LinkedHashMap<>();
    for (OutboxRow row : rows) {
      OutboxMessage m = row.message();
      if (returnedIds.contains(m.messageId().toString())) {
        unroutable.computeIfAbsent(m.exchange() + " " + m.routingKey(), k -> new ArrayList<>()).add(row.id());
      } else {
        confirmed.add(row.id());
      }
    }
    for (Map.Entry<String, List<Long>> e : unroutable.entrySet()) {
      String[] exchangeAndKey = e.getKey().split(" ", 2);
      setAside(c, e.getValue(), exchangeAndKey[0],
          "no queue bound to " + exchangeAndKey[1] + " on " + exchangeAndKey[0]);
    }
    return confirmed;
  }

  private void setAside(java.sql.Connection c, List<Long> ids, String exchange, String problem)
      throws java.sql.SQLException {
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
      headers = Json.MAPPER.readValue(m.headersJson(), HEADERS);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
    return new AMQP.BasicProperties.Builder()
        .messageId(m.messageId().toString())
        .correlationId(m.correlationId())
        .contentType(Headers.CONTENT_TYPE_JSON)
        .deliveryMode(2)
        .timestamp(Date.from(row.createdAt()))
        .headers(headers)
        .build();
  }

  private Channel channel() throws IOException {
    if (channel == null || !channel.isOpen()) {
      Channel ch = connection.createChannel();
      ch.confirmSelect();
      ch.addReturnListener(r -> {
        if (r.getProperties().getMessageId() != null) {
          returnedIds.add(r.getProperties().getMessageId());
        }
      });
      channel = ch;
    }
    return channel;
  }

  private void closeChannel() {
    Channel ch = channel;
    channel = null;
    if (ch != null && ch.isOpen()) {
      try {
        ch.close();
      } catch (IOException | TimeoutException | RuntimeException ignored) {
        // a fresh channel is opened next round
      }
    }
  }
}
