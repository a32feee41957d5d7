package dev.baton.runtime.events;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.messaging.ConfirmedPublisher;
import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.PublishResult;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parks events the runtime cannot use in {@code q.dlx.orchestrator.W} (through the default exchange, which the
 * runtime's broker user may write), with the reason in {@code x-exception-*} headers, confirmed before the caller
 * ACKs the original.
 *
 * <p>Asynchronous: publishing happens on the parking lot's own thread, never on a lane thread, so a broker that
 * blocks publishers (a memory or disk alarm) cannot stall the step loop. A park that fails (the parking queue is
 * missing, the broker nacks, no confirm in time, the connection is down) is tried again with a backoff, for as long
 * as the original delivery can still be ACKed; the event stays unacknowledged meanwhile, so nothing is lost: it is
 * never rejected into the parking queue's own dead-letter path, which would drop it when that queue is the missing
 * one. Unacknowledged events are bounded by the prefetch, and so is what waits here.
 */
final class ParkingLot implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ParkingLot.class);
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(10);
  private static final long FIRST_RETRY_MS = 500;
  private static final long MAX_RETRY_MS = 15_000;
  private static final int MAX_REASON = 2_000;

  private final ConfirmedPublisher publisher;
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "baton-parking");
    t.setDaemon(true);
    return t;
  });

  ParkingLot(Connection connection) {
    this.publisher = new ConfirmedPublisher(connection, "parking", CONFIRM_TIMEOUT);
  }

  /**
   * Parks a copy of {@code d} with the reason.
   *
   * @return completes with true once the broker confirmed the parked copy, or false when its original can no longer
   *     be ACKed (its channel closed: the broker redelivers it, and it is parked then)
   */
  CompletableFuture<Boolean> park(PendingDelivery d, String reason, String type) {
    OutboundMessage copy = parkedCopy(d, reason, type);
    CompletableFuture<Boolean> parked = new CompletableFuture<>();
    attempt(d, copy, parked, 1, FIRST_RETRY_MS);
    return parked;
  }

  private void attempt(PendingDelivery d, OutboundMessage copy, CompletableFuture<Boolean> parked, int attempt,
      long nextDelayMs) {
    try {
      thread.execute(() -> publisher.publish(copy).whenComplete((result, e) -> {
        if (result != null && result.confirmed()) {
          parked.complete(true);
        } else {
          retry(d, copy, parked, attempt, nextDelayMs, result);
        }
      }));
    } catch (RejectedExecutionException e) {
      parked.complete(false); // stopping: the original stays unacknowledged and is redelivered
    }
  }

  private void retry(PendingDelivery d, OutboundMessage copy, CompletableFuture<Boolean> parked, int attempt,
      long delayMs, PublishResult result) {
    if (!d.channel().isOpen()) {
      LOG.warn("Gave up parking an event of workflow {} (message id {}): its channel closed, the broker redelivers it",
          d.workflow(), d.props().getMessageId());
      parked.complete(false);
      return;
    }
    String why = result == null ? "no result"
        : result.status() == PublishResult.Status.UNROUTABLE ? "queue " + copy.routingKey() + " does not exist"
        : result.toString();
    // The first failure is an ERROR (someone must look at the parking queue); repeats are quieter and sparser.
    if (attempt == 1) {
      LOG.error("Cannot park an event of workflow {} in {} ({}); it stays unacknowledged and parking is retried "
          + "every few seconds", d.workflow(), copy.routingKey(), why);
    } else if (Integer.bitCount(attempt) == 1) {
      LOG.warn("Parking attempt {} of an event of workflow {} failed ({}); next in {} ms", attempt, d.workflow(), why,
          delayMs);
    }
    try {
      thread.schedule(() -> attempt(d, copy, parked, attempt + 1, Math.min(MAX_RETRY_MS, delayMs * 2)), delayMs,
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      parked.complete(false);
    }
  }

  private static OutboundMessage parkedCopy(PendingDelivery d, String reason, String type) {
    AMQP.BasicProperties props = d.props();
    Map<String, Object> headers = new HashMap<>(props.getHeaders() == null ? Map.of() : props.getHeaders());
    headers.put(Headers.EXCEPTION_MESSAGE, reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
    headers.put(Headers.EXCEPTION_TYPE, type);
    headers.put(Headers.ORIGINAL_ROUTING_KEY, d.envelope().getRoutingKey());
    headers.put(Headers.ORIGINAL_EXCHANGE, d.envelope().getExchange());
    String parkingQueue = Names.orchestratorDeadLetterQueue(d.workflow());
    return new OutboundMessage("", parkingQueue, true, props.builder().headers(headers).deliveryMode(2).build(),
        d.body(), "parked event " + props.getMessageId() + " of workflow " + d.workflow());
  }

  /** Stops retrying: events still waiting stay unacknowledged and are redelivered after the channel closes. */
  @Override
  public void close() {
    thread.shutdownNow();
    publisher.close();
  }
}
