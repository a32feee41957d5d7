package dev.baton.worker;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.messaging.AwaitingRecoveryException;
import dev.baton.messaging.ConfirmedPublisher;
import dev.baton.messaging.RecoveringChannel;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One channel consuming one queue: manual ack, per-consumer prefetch, and its own {@link DeliverySettler}. The
 * channel only consumes and acks; what a delivery's decision publishes goes out on the worker's publisher connection
 * ({@link ConfirmedPublisher}), so a broker throttling publishers never holds up acks.
 *
 * <p>Deliveries are handed from the client's dispatch thread to the channel's own thread at once and handled there
 * one at a time, in order; the handler itself runs on a handler thread within its time limit ({@link TimedHandlers}).
 * A handler that outlives its limit no longer holds up the deliveries behind it, but its own delivery stays unacked
 * until it ends, and its decision is carried out then. A duplicate of a message still in a handler is put aside until
 * that one is over, instead of holding up the deliveries behind it.
 *
 * <p>Losing the connection is handled by the client's automatic recovery (channel, qos and consumer come back; the
 * holder does not open a second channel meanwhile). What recovery does not cover is the broker closing just this
 * channel (a channel error) or cancelling the consumer (its queue was deleted, e.g. while the operator re-creates it):
 * then the channel is replaced with a growing pause for as long as the worker runs.
 */
final class ConsumerChannel {

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerChannel.class);
  private static final long FIRST_REOPEN_DELAY_MS = 1_000;
  private static final long MAX_REOPEN_DELAY_MS = 30_000;

  /** What the consumer channels of one worker share. */
  record Shared(ConfirmedPublisher publisher, InFlight inFlight, BooleanSupplier stopping,
      ScheduledExecutorService supervisor, ScheduledExecutorService publishRetries, ExecutorService acks,
      Duration longestWait, String eventExchange) {}

  private final ConsumerTopology consumer;
  private final String consumerTag;
  private final int prefetch;
  private final DeliveryProcessor processor;
  private final Shared shared;
  private final RecoveringChannel channel;
  private final ExecutorService deliveries;

  private final AtomicBoolean reopenPending = new AtomicBoolean();
  private final AtomicLong reopenDelayMs = new AtomicLong(FIRST_REOPEN_DELAY_MS);

  ConsumerChannel(Connection connection, ConsumerTopology consumer, String consumerTag, int prefetch,
      DeliveryProcessor processor, Shared shared) {
    this.consumer = consumer;
    this.consumerTag = consumerTag;
    this.prefetch = prefetch;
    this.processor = processor;
    this.shared = shared;
    this.channel = new RecoveringChannel(connection, this::prepare);
    this.deliveries = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "baton-" + consumerTag);
      t.setDaemon(true);
      return t;
    });
  }

  String queue() {
    return consumer.queue();
  }

  /** Whether the channel is open with its consumer: not while recovering, reopening or resubscribing. */
  boolean consuming() {
    Channel ch = channel.current();
    return ch != null && ch.isOpen() && !reopenPending.get();
  }

  /** Opens the channel and starts consuming; a failure (no such queue, no permission) is thrown, not retried. */
  void open() throws IOException {
    channel.get();
  }

  /** Every new channel: qos, its settler, the consumer; and only then the reopen watch. */
  private void prepare(Channel ch) throws IOException {
    ch.basicQos(prefetch);
    DeliverySettler settler = new DeliverySettler(ch, shared.inFlight(), consumer.queue(), shared.acks());
    ch.addShutdownListener(settler);
    // Never auto-ack: the settler acks once the result is confirmed.
    ch.basicConsume(consumer.queue(), false, consumerTag, new QueueConsumer(ch, settler));
    // Only now: a failure to subscribe is reported to the caller, not turned into a reopen loop.
    ch.addShutdownListener(this::onChannelShutdown);
    reopenDelayMs.set(FIRST_REOPEN_DELAY_MS);
  }

  /** Stops new deliveries; what was already delivered is still handled (or released) and settled. */
  void cancel() {
    Channel ch = channel.current();
    if (ch == null || !ch.isOpen()) {
      return;
    }
    try {
      ch.basicCancel(consumerTag);
    } catch (IOException | RuntimeException e) {
      LOG.debug("cancel of {} on {} failed: {}", consumerTag, consumer.queue(), e.toString());
    }
  }

  /** Closes the channel (whatever is unacked goes back to the queue) and stops the channel's thread. */
  void close() {
    channel.close();
    deliveries.shutdownNow();
  }

  private void onChannelShutdown(ShutdownSignalException cause) {
    // Connection failures are the client's automatic recovery's business; our own closes are intended.
    if (cause.isHardError() || cause.isInitiatedByApplication() || shared.stopping().getAsBoolean()) {
      return;
    }
    LOG.warn("the broker closed the channel consuming {}: {}; reopening", consumer.queue(), cause.getMessage());
    scheduleReopen();
  }

  private void onCancelledByBroker() {
    if (shared.stopping().getAsBoolean()) {
      return;
    }
    LOG.warn("the broker cancelled the consumer of {} (was the queue deleted?); resubscribing", consumer.queue());
    channel.failed(); // open, but without its consumer: replaced by the reopen
    scheduleReopen();
  }

  /** Runs on the connection's I/O thread too: takes no lock, schedules at most one reopen at a time. */
  private void scheduleReopen() {
    if (!reopenPending.compareAndSet(false, true)) {
      return;
    }
    long delay = reopenDelayMs.getAndUpdate(d -> Math.min(MAX_REOPEN_DELAY_MS, d * 2));
    try {
      shared.supervisor().schedule(this::reopen, delay, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      reopenPending.set(false); // the worker is closing
    }
  }

  private void reopen() {
    reopenPending.set(false);
    if (shared.stopping().getAsBoolean()) {
      return;
    }
    try {
      channel.get();
      LOG.info("consuming {} again", consumer.queue());
    } catch (AwaitingRecoveryException e) {
      scheduleReopen(); // automatic recovery is still at work
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot consume {} yet: {}; trying again in {} ms", consumer.queue(), rootMessage(e),
          reopenDelayMs.get());
      scheduleReopen();
    }
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  /**
   * On the channel's thread: decide (the handler runs on a handler thread meanwhile), then publish and settle; never
   * throws. The channel's deliveries are handled one at a time, except that the thread stops waiting for a handler
   * whose channel went away: its delivery can no longer be settled, and the recovered channel's deliveries (its
   * redelivered copy among them, which waits aside for it) must not wait for it.
   */
  private void handle(DeliverySettler.Delivery delivery, InboundMessage message) {
    if (!delivery.startProcessing()) {
      return; // its channel went away: the broker redelivers it
    }
    if (shared.stopping().getAsBoolean()) {
      delivery.release(); // not started: back to the queue for another replica
      return;
    }
    CompletableFuture<DeliveryDecision> deciding;
    try {
      deciding = processor.decide(message);
    } catch (RuntimeException | Error e) {
      deciding = CompletableFuture.failedFuture(e);
    }
    try {
      CompletableFuture.anyOf(deciding, delivery.channelGone()).get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // closing
    } catch (ExecutionException e) {
      // the decision failed: looked at below
    }
    if (!deciding.isDone()) {
      // Left to the broker; still in flight (a graceful shutdown waits for the handler) until the handler is over.
      DeliveryDecision.eventually(deciding).whenComplete((d, e) -> delivery.decided());
      return;
    }
    carryOut(delivery, message, deciding);
  }

  private void carryOut(DeliverySettler.Delivery delivery, InboundMessage message,
      CompletableFuture<DeliveryDecision> deciding) {
    DeliveryDecision decision;
    try {
      decision = deciding.join();
    } catch (CompletionException | CancellationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof VirtualMachineError fatal) {
        // Not the message's fault: leave it to the broker, and drop the channel so that it comes back.
        LOG.error("{}: {} while handling delivery {}; the channel is replaced and the broker redelivers its "
            + "messages", consumer.queue(), fatal, delivery.tag);
        if (delivery.decided()) {
          delivery.abandon();
        }
        channel.failed();
        scheduleReopen();
        return;
      }
      LOG.error("{}: the SDK could not decide about delivery {}; rejecting it to the queue's dead-letter path",
          consumer.queue(), delivery.tag, cause);
      decision = DeliveryDecision.reject();
    }
    CompletableFuture<DeliveryDecision> overdue = decision.overdue();
    if (overdue != null) {
      // The handler outlived its limit and still runs: the channel goes on; this delivery stays unacked and in
      // flight (also if the channel goes away meanwhile) until the handler ends, and its decision is carried out then,
      // on the thread that ends it (not this channel's, which may be waiting for another handler by then).
      overdue.whenComplete((d, e) -> carryOut(delivery, message, overdue));
      return;
    }
    if (!delivery.decided()) {
      // The channel went away while the handler ran: the redelivered copy publishes (answered from the store).
      return;
    }
    if (decision.later() != null) {
      // Its duplicate is in a handler: decide again once that one is over (or after a while, to look again).
      decision.later().copy().orTimeout(shared.longestWait().toMillis(), TimeUnit.MILLISECONDS)
          .whenComplete((v, e) -> submit(delivery, message));
      return;
    }
    if (decision.rejected()) {
      delivery.reject();
    } else if (decision.publishes().isEmpty()) {
      delivery.ack();
    } else {
      new Settlement(delivery, decision.publishes(), shared.publisher(), shared.publishRetries(), consumer.queue(),
          shared.eventExchange()).start();
    }
  }

  private void submit(DeliverySettler.Delivery delivery, InboundMessage message) {
    try {
      deliveries.execute(() -> handle(delivery, message));
    } catch (RejectedExecutionException e) {
      delivery.abandon(); // closing: the broker redelivers it
    }
  }

  /** Hands each delivery to the channel's thread at once; never throws into the client. */
  private final class QueueConsumer extends DefaultConsumer {

    private final DeliverySettler settler;

    QueueConsumer(Channel channel, DeliverySettler settler) {
      super(channel);
      this.settler = settler;
    }

    @Override
    public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
      // Registered before anything else, so that a shutdown either waits for this delivery or sees it released.
      DeliverySettler.Delivery delivery = settler.arrived(envelope.getDeliveryTag());
      LOG.debug("{}: delivery {}", consumer.queue(), envelope.getDeliveryTag());
      submit(delivery, InboundMessage.of(envelope, properties, body));
    }

    @Override
    public void handleCancel(String tag) {
      onCancelledByBroker();
    }
  }
}
