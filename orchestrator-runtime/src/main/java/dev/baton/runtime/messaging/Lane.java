package dev.baton.runtime.messaging;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer thread with its own channel. The channel consumes every orchestrator queue with manual ACK and a
 * bounded prefetch; deliveries go into the lane's inbox and the lane's thread runs them through the step loop, in
 * batches of what is already waiting. Lanes run in parallel; the instance row lock keeps them (and other replicas)
 * apart.
 */
final class Lane {

  private static final Logger LOG = LoggerFactory.getLogger(Lane.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

  private final int index;
  private final Connection connection;
  private final int prefetch;
  private final int batchSize;
  private final StepLoop stepLoop;
  private final BlockingQueue<PendingDelivery> inbox = new LinkedBlockingQueue<>();
  private final Map<String, String> consumerTags = new HashMap<>();
  private final Thread thread;
  private Channel channel;
  /** {@link System#nanoTime()} when the channel was first seen closed, 0 while it is open. */
  private long channelClosedSince;
  private volatile boolean running = true;
  private volatile boolean stopping;

  Lane(int index, Connection connection, int prefetch, int batchSize, StepLoop stepLoop) {
    this.index = index;
    this.connection = connection;
    this.prefetch = prefetch;
    this.batchSize = batchSize;
    this.stepLoop = stepLoop;
    this.thread = new Thread(this::run, "baton-step-loop-" + index);
  }

  void start() {
    thread.start();
  }

  synchronized Set<String> subscribedWorkflows() {
    return Set.copyOf(consumerTags.keySet());
  }

  synchronized boolean isSubscribed(String workflow) {
    return consumerTags.containsKey(workflow);
  }

  /** Starts consuming the workflow's queue on this lane's channel (the queue must exist: the caller checked). */
  synchronized void subscribe(String workflow, String queue) throws IOException {
    if (stopping || consumerTags.containsKey(workflow)) {
      return;
    }
    Channel ch = channel();
    String tag = ch.basicConsume(queue, false, "baton-runtime-" + index + "-" + workflow, new Consumer(ch, workflow));
    consumerTags.put(workflow, tag);
  }

  synchronized void unsubscribe(String workflow) {
    String tag = consumerTags.remove(workflow);
    if (tag != null && channel != null && channel.isOpen()) {
      try {
        channel.basicCancel(tag);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Cancel of {} on lane {} failed: {}", workflow, index, e.toString());
      }
    }
  }

  /**
   * Stops taking deliveries, handles the ones already received (bounded by the prefetch) until {@code grace} runs
   * out, then closes the channel: whatever is still unacknowledged goes back to the queue.
   */
  void stop(Duration grace) {
    synchronized (this) {
      stopping = true;
      for (String workflow : List.copyOf(consumerTags.keySet())) {
        unsubscribe(workflow);
      }
    }
    running = false;
    try {
      thread.join(grace.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    thread.interrupt();
    synchronized (this) {
      closeChannel();
    }
  }

  private Channel channel() throws IOException {
    channelClosedSince = RecoveringChannels.closedSince(channel, channelClosedSince);
    // While the connection recovers, it brings this channel and its consumers back: do not replace it then.
    if (RecoveringChannels.needsReplacing(channel, channelClosedSince)) {
      RecoveringChannels.discard(channel);
      channelClosedSince = 0;
      consumerTags.clear();
      channel = connection.createChannel();
      channel.basicQos(prefetch);
    }
    return channel;
  }

  private void closeChannel() {
    if (channel != null && channel.isOpen()) {
      try {
        channel.close();
      } catch (IOException | TimeoutException | RuntimeException e) {
        LOG.debug("Closing lane {} channel: {}", index, e.toString());
      }
    }
  }

  private void run() {
    List<PendingDelivery> batch = new ArrayList<>(batchSize);
    while (running || !inbox.isEmpty()) {
      try {
        PendingDelivery first = inbox.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        inbox.drainTo(batch, batchSize - 1);
        handle(batch);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (RuntimeException e) {
        // Never let a bug kill the consumer thread: the deliveries stay unacknowledged and come back.
        LOG.error("Step loop {} failed on a batch of {}", index, batch.size(), e);
        stepLoop.leftUnsettled(batch);
      } finally {
        batch.clear();
      }
    }
  }

  /** Retries what the database could not take yet, backing off, for as long as the lane runs. */
  private void handle(List<PendingDelivery> batch) throws InterruptedException {
    List<PendingDelivery> pending = stepLoop.process(batch);
    long backoff = 100;
    while (!pending.isEmpty() && running) {
      Thread.sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF.toMillis());
      pending = stepLoop.process(pending);
    }
    if (!pending.isEmpty()) {
      stepLoop.leftUnsettled(pending); // stopping: the broker redelivers them
    }
  }

  private final class Consumer extends DefaultConsumer {
    private final String workflow;

    Consumer(Channel channel, String workflow) {
      super(channel);
      this.workflow = workflow;
    }

    @Override
    public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
      inbox.add(new PendingDelivery(getChannel(), workflow, envelope, props, body));
    }

    /** The broker cancelled us: the queue was deleted. The registry subscribes again once it is back. */
    @Override
    public void handleCancel(String consumerTag) {
      synchronized (Lane.this) {
        consumerTags.remove(workflow, consumerTag);
      }
      LOG.warn("The broker cancelled the consumer of {} on lane {} (queue deleted?)", workflow, index);
    }

    /**
     * A channel-level error closes the channel for good (automatic recovery only brings back what a connection
     * failure took): forget the subscriptions so the registry opens a new channel and subscribes again.
     */
    @Override
    public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
      if (!sig.isHardError() && !sig.isInitiatedByApplication()) {
        synchronized (Lane.this) {
          consumerTags.clear();
        }
        LOG.warn("Lane {} channel closed: {}", index, sig.getMessage());
      }
    }
  }
}
