package dev.baton.worker;

import dev.baton.messaging.ConfirmedPublisher;
import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.PublishResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a decision's publishes for one delivery, then settles it: ack once all are confirmed; reject (the
 * queue's own dead-letter path) when a retry or dead letter came back unroutable or the client cannot encode one.
 * A result event comes back unroutable when no queue is bound for its key yet — the operator binds an older
 * revision's keys again within a poll of the runtime's routes (docs/design.md#runtime-semantics) — so it is
 * published again with the backoff below, {@value #UNROUTABLE_EVENT_ATTEMPTS} times in all (about a minute), and only
 * then rejected: never dropped, and a Workflow that is gone holds a prefetch slot for a minute, not forever. Anything
 * else the broker did not confirm (a nack, a channel error, no confirm in time, the publisher connection down) is
 * published again after a backoff (200 ms doubling to 30 s), the delivery unacked meanwhile: no immediate
 * redelivery, no hot loop, and the result the handler produced is not lost. It stops when the delivery's channel
 * goes away (the broker redelivers it, and the duplicate is answered from the idempotency store) or the worker
 * closes.
 */
final class Settlement {

  private static final Logger LOG = LoggerFactory.getLogger(Settlement.class);
  static final long FIRST_RETRY_MS = 200;
  static final long MAX_RETRY_MS = 30_000;
  static final int UNROUTABLE_EVENT_ATTEMPTS = 9;

  private final DeliverySettler.Delivery delivery;
  private final ConfirmedPublisher publisher;
  private final ScheduledExecutorService retries;
  private final String queue;
  private final String eventExchange;
  private List<OutboundMessage> remaining;
  private long nextDelayMs = FIRST_RETRY_MS;
  private int attempt = 1;

  Settlement(DeliverySettler.Delivery delivery, List<OutboundMessage> publishes, ConfirmedPublisher publisher,
      ScheduledExecutorService retries, String queue, String eventExchange) {
    this.delivery = delivery;
    this.eventExchange = eventExchange;
    this.remaining = List.copyOf(publishes);
    this.publisher = publisher;
    this.retries = retries;
    this.queue = queue;
  }

  /** Publishes (in order, on the calling thread) and settles once the broker has answered for each. */
  void start() {
    List<OutboundMessage> messages = remaining;
    List<CompletableFuture<PublishResult>> results = new ArrayList<>(messages.size());
    for (OutboundMessage m : messages) {
      results.add(publisher.publish(m));
    }
    CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
        .whenComplete((v, e) -> settle(messages, results));
  }

  /** On the thread that completed the last confirm: decide, and at most schedule; never publish here. */
  private void settle(List<OutboundMessage> messages, List<CompletableFuture<PublishResult>> results) {
    List<OutboundMessage> again = new ArrayList<>();
    for (int i = 0; i < messages.size(); i++) {
      OutboundMessage m = messages.get(i);
      PublishResult r = results.get(i).join();
      switch (r.status()) {
        case CONFIRMED -> { }
        case UNROUTABLE -> {
          if (m.exchange().equals(eventExchange) && attempt < UNROUTABLE_EVENT_ATTEMPTS) {
            again.add(m);
            LOG.warn("{}: {} was unroutable: no queue is bound to {} for it (yet); publishing it again in {} ms "
                + "(attempt {} of {}), the delivery stays unacked", queue, m.what(), m.exchange(), nextDelayMs,
                attempt + 1, UNROUTABLE_EVENT_ATTEMPTS);
            continue;
          }
          LOG.error("{}: {} was unroutable ({}): exchange {} has no queue bound for {}; is the topology out of date? "
              + "Rejecting the delivery to the queue's own dead-letter path", queue, m.what(), r.detail(),
              m.exchange(), m.routingKey());
          delivery.reject();
          return;
        }
        case NACKED, FAILED -> {
          if (r.failure() == PublishResult.Failure.REJECTED_BY_CLIENT) {
            LOG.error("{}: {} cannot be sent ({}); rejecting the delivery to the queue's own dead-letter path", queue,
                m.what(), r.detail());
            delivery.reject();
            return;
          }
          again.add(m);
          LOG.warn("{}: {} not confirmed: {}; publishing it again in {} ms (attempt {}), the delivery stays unacked",
              queue, m.what(), r, nextDelayMs, attempt + 1);
        }
      }
    }
    if (again.isEmpty()) {
      delivery.ack();
      return;
    }
    remaining = again;
    long delay = nextDelayMs;
    nextDelayMs = Math.min(MAX_RETRY_MS, nextDelayMs * 2);
    attempt++;
    try {
      retries.schedule(this::retry, delay, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      delivery.abandon(); // the worker is closing: the broker redelivers it
    }
  }

  private void retry() {
    if (delivery.stale()) {
      LOG.debug("{}: delivery {} went back to the broker; its duplicate will publish", queue, delivery.tag);
      delivery.abandon();
      return;
    }
    start();
  }
}
