package dev.baton.runtime.relay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.rabbitmq.client.AMQP;
import dev.baton.api.json.Json;
import dev.baton.contract.Headers;
import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.PublishResult;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessagingSpans;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.tracing.PublishTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import java.io.UncheckedIOException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a batch's claimed rows, each in the span of its sending, with the mandatory flag for commands; the batch's
 * last confirm wakes the relay's thread. Under the relay's rounds lock ({@link RelayState#rounds}).
 */
final class BatchPublisher {

  /** The relay's own logger: what it reports is found under one name. */
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);
  private static final ObjectReader HEADERS = Json.MAPPER.readerFor(LinkedHashMap.class);

  private final RelayState state;
  private final ExchangeProbe probe;
  private final RuntimeMetrics metrics;
  private final PublishTracing tracing;
  private final OutcomeRecorder recorder;

  BatchPublisher(RelayState state, ExchangeProbe probe, RuntimeMetrics metrics, PublishTracing tracing,
      OutcomeRecorder recorder) {
    this.state = state;
    this.probe = probe;
    this.metrics = metrics;
    this.tracing = tracing;
    this.recorder = recorder;
  }

  /**
   * Publishes claimed rows in order on the batch's channel generation, and sets aside in its transaction those whose
   * exchange does not exist or whose headers cannot be read.
   */
  void publishInto(InFlightBatch b, List<OutboxRow> rows) throws SQLException {
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
      BatchEntry entry = new BatchEntry(row, message.message());
      b.entries.add(entry);
      if (!b.stopped) {
        // Only while the channel is the one the batch started on: after a channel error, the rest waits for its
        // turn instead of overtaking the rows that failed.
        metrics.hop(RuntimeMetrics.Hop.OUTBOX_WAIT,
            TimeUnit.MILLISECONDS.toNanos(claimedMillis - row.createdAt().toEpochMilli()));
        if (b.publishedNanos == 0) {
          b.publishedNanos = System.nanoTime();
        }
        entry.result = state.publisher.publishInGeneration(message.message(), b.generation);
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
    CompletableFuture.allOf(published.toArray(CompletableFuture[]::new))
        .whenComplete((done, failure) -> state.wakeUp());
    for (Map.Entry<String, List<Long>> e : missingExchanges.entrySet()) {
      recorder.setAsideMissing(b.connection, e.getValue(), e.getKey());
    }
    if (!unreadable.isEmpty()) {
      recorder.refuse(b, unreadable, "(unreadable)", "the runtime refused the command: its headers cannot be read");
    }
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
}
