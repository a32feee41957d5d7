package dev.baton.worker;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.contract.topology.ConsumerTopology;
import java.io.IOException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One channel consuming one queue: manual ack, per-consumer prefetch, publisher confirms, and its own
 * {@link DeliverySettler}.
 *
 * <p>Losing the connection is handled by the client's automatic recovery (channel, qos, confirms and consumer come
 * back). What recovery does not cover is the broker closing just this channel (a channel error) or cancelling the
 * consumer (its queue was deleted, e.g. while the operator re-creates it): then the channel is reopened with a
 * growing pause for as long as the worker runs.
 */
final class ConsumerChannel {

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerChannel.class);
  private static final long FIRST_REOPEN_DELAY_MS = 1_000;
  private static final long MAX_REOPEN_DELAY_MS = 30_000;

  private final Connection connection;
  private final ConsumerTopology consumer;
  private final String consumerTag;
  private final int prefetch;
  private final DeliveryProcessor processor;
  private final InFlight inFlight;
  private final BooleanSupplier stopping;
  private final ScheduledExecutorService supervisor;

  private volatile Channel channel;
  private final AtomicBoolean reopenPending = new AtomicBoolean();
  private final AtomicLong reopenDelayMs = new AtomicLong(FIRST_REOPEN_DELAY_MS);

  ConsumerChannel(Connection connection, ConsumerTopology consumer, String consumerTag, int prefetch,
      DeliveryProcessor processor, InFlight inFlight, BooleanSupplier stopping, ScheduledExecutorService supervisor) {
    this.connection = connection;
    this.consumer = consumer;
    this.consumerTag = consumerTag;
    this.prefetch = prefetch;
    this.processor = processor;
    this.inFlight = inFlight;
    this.stopping = stopping;
    this.supervisor = supervisor;
  }

  String queue() {
    return consumer.queue();
  }

  synchronized void open() throws IOException {
    Channel ch = connection.createChannel();
    if (ch == null) {
      throw new IOException("no channel available on the connection (channel_max reached)");
    }
    try {
      ch.basicQos(prefetch);
      ch.confirmSelect();
      DeliverySettler settler = new DeliverySettler(ch, inFlight, consumer.queue());
      ch.addConfirmListener(settler);
      ch.addReturnListener(settler);
      ch.addShutdownListener(settler);
      // Never auto-ack: the settler acks once the result is confirmed.
      ch.basicConsume(consumer.queue(), false, consumerTag, new QueueConsumer(ch, settler));
    } catch (IOException | RuntimeException e) {
      abort(ch);
      throw e;
    }
    // Only now: a failure to subscribe is reported to the caller, not turned into a reopen loop.
    ch.addShutdownListener(this::onChannelShutdown);
    channel = ch;
    reopenDelayMs.set(FIRST_REOPEN_DELAY_MS);
  }

  /** Stops new deliveries; what was already delivered is still handled (or released) and settled. */
  void cancel() {
    Channel ch = channel;
    if (ch == null || !ch.isOpen()) {
      return;
    }
    try {
      ch.basicCancel(consumerTag);
    } catch (IOException | RuntimeException e) {
      LOG.debug("cancel of {} on {} failed: {}", consumerTag, consumer.queue(), e.toString());
    }
  }

  void close() {
    Channel ch = channel;
    if (ch != null) {
      abort(ch);
    }
  }

  /** Closes without waiting for a broker that may be gone; also makes recovery forget the channel and consumer. */
  private static void abort(Channel ch) {
    try {
      ch.abort();
    } catch (IOException | RuntimeException e) {
      LOG.debug("aborting a channel: {}", e.toString());
    }
  }

  private void onChannelShutdown(ShutdownSignalException cause) {
    // Connection failures are the client's automatic recovery's business; our own closes are intended.
    if (cause.isHardError() || cause.isInitiatedByApplication() || stopping.getAsBoolean()) {
      return;
    }
    LOG.warn("the broker closed the channel consuming {}: {}; reopening", consumer.queue(), cause.getMessage());
    scheduleReopen();
  }

  private void onCancelledByBroker() {
    if (stopping.getAsBoolean()) {
      return;
    }
    LOG.warn("the broker cancelled the consumer of {} (was the queue deleted?); resubscribing", consumer.queue());
    scheduleReopen();
  }

  /** Runs on the connection's I/O thread too: takes no lock, schedules at most one reopen at a time. */
  private void scheduleReopen() {
    if (!reopenPending.compareAndSet(false, true)) {
      return;
    }
    long delay = reopenDelayMs.getAndUpdate(d -> Math.min(MAX_REOPEN_DELAY_MS, d * 2));
    try {
      supervisor.schedule(this::reopen, delay, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      reopenPending.set(false); // the worker is closing
    }
  }

  private void reopen() {
    reopenPending.set(false);
    if (stopping.getAsBoolean()) {
      return;
    }
    if (!connection.isOpen()) {
      scheduleReopen(); // automatic recovery is still at work
      return;
    }
    synchronized (this) {
      close();
      try {
        open();
        LOG.info("consuming {} again", consumer.queue());
      } catch (IOException | RuntimeException e) {
        LOG.warn("cannot consume {} yet: {}; trying again in {} ms", consumer.queue(), rootMessage(e),
            reopenDelayMs.get());
        scheduleReopen();
      }
    }
  }

  static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  /** Hands each delivery to the processor and its decision to the settler; never throws into the client. */
  private final class QueueConsumer extends DefaultConsumer {

    private final DeliverySettler settler;

    QueueConsumer(Channel channel, DeliverySettler settler) {
      super(channel);
      this.settler = settler;
    }

    @Override
    public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties properties, byte[] body) {
      // Counted before looking at the stop flag, so a shutdown either waits for this delivery or sees it released.
      inFlight.begin();
      LOG.debug("{}: delivery {} (stopping={})", consumer.queue(), envelope.getDeliveryTag(), stopping.getAsBoolean());
      if (stopping.getAsBoolean()) {
        settler.release(envelope.getDeliveryTag());
        inFlight.end();
        return;
      }
      long generation = settler.generation();
      DeliveryDecision decision;
      try {
        decision = processor.decide(InboundMessage.of(envelope, properties, body));
      } catch (RuntimeException | StackOverflowError e) {
        LOG.error("{}: the SDK could not decide about delivery {}; rejecting it to the queue's dead-letter path",
            consumer.queue(), envelope.getDeliveryTag(), e);
        decision = DeliveryDecision.reject();
      } catch (Error fatal) {
        inFlight.end();
        throw fatal;
      }
      settler.settle(generation, envelope.getDeliveryTag(), decision);
    }

    @Override
    public void handleCancel(String tag) {
      onCancelledByBroker();
    }
  }
}
