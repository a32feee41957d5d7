package dev.baton.runtime.events;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.messaging.RecoveringChannel;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer thread with its own channel. The channel consumes every orchestrator queue with manual ACK and a
 * bounded prefetch; deliveries go into the lane's inbox and the lane's thread runs them through the step loop, in
 * batches of what is already waiting. Lanes run in parallel; the instance row lock keeps them (and other replicas)
 * apart.
 *
 * <p>A lane survives what it can: anything its batch throws, an {@link Error} included, is logged, the batch's
 * deliveries are left unacknowledged and the channel is dropped so that the broker redelivers them (to any lane),
 * and the loop starts again after a backoff. While it waits, and if its thread ever ends, the lane reports itself
 * not running ({@link #problem()}), which {@code /healthz} shows.
 */
final class Lane {

  private static final Logger LOG = LoggerFactory.getLogger(Lane.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
  private static final long FIRST_RESTART_DELAY_MS = 1_000;
  private static final long MAX_RESTART_DELAY_MS = 30_000;

  private final int index;
  private final int batchSize;
  private final StepLoop stepLoop;
  private final RecoveringChannel channel;
  private final BlockingQueue<PendingDelivery> inbox = new LinkedBlockingQueue<>();
  private final Map<String, String> consumerTags = new HashMap<>();
  private final Thread thread;
  private volatile boolean running = true;
  private volatile boolean stopping;
  /** Set while the loop waits to start again after a failure: what went wrong. */
  private volatile String restarting;

  Lane(int index, Connection connection, int prefetch, int batchSize, StepLoop stepLoop) {
    this.index = index;
    this.batchSize = batchSize;
    this.stepLoop = stepLoop;
    // A new channel has no consumers: the registry subscribes it again.
    this.channel = new RecoveringChannel(connection, ch -> {
      ch.basicQos(prefetch);
      consumerTags.clear();
    });
    this.thread = new Thread(this::run, "baton-step-loop-" + index);
  }

  void start() {
    thread.start();
  }

  /** Empty while the lane runs; else why it does not (for {@code /healthz}). */
  Optional<String> problem() {
    if (stopping) {
      return Optional.empty();
    }
    if (!thread.isAlive()) {
      return Optional.of("lane " + index + ": its thread has ended");
    }
    String why = restarting;
    return why == null ? Optional.empty() : Optional.of("lane " + index + ": restarting after " + why);
  }

  synchronized Set<String> subscribedWorkflows() {
    return Set.copyOf(consumerTags.keySet());
  }

  synchronized boolean isSubscribed(String workflow) {
    return consumerTags.containsKey(workflow);
  }

  /**
   * Starts consuming the workflow's queue on this lane's channel (the queue must exist: the caller checked).
   *
   * @return whether the lane consumes it now (not while it is stopping or waiting to restart)
   */
  synchronized boolean subscribe(String workflow, String queue) throws IOException {
    if (consumerTags.containsKey(workflow)) {
      return true;
    }
    if (stopping || restarting != null) {
      return false;
    }
    // While the connection recovers, it brings this channel and its consumers back: the holder does not replace it.
    Channel ch = channel.get();
    String tag = ch.basicConsume(queue, false, "baton-runtime-" + index + "-" + workflow, new Consumer(ch, workflow));
    consumerTags.put(workflow, tag);
    return true;
  }

  synchronized void unsubscribe(String workflow) {
    String tag = consumerTags.remove(workflow);
    Channel ch = channel.current();
    if (tag != null && ch != null && ch.isOpen()) {
      try {
        ch.basicCancel(tag);
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
    channel.close();
  }

  private void run() {
    long restartDelay = FIRST_RESTART_DELAY_MS;
    while (running || !inbox.isEmpty()) {
      List<PendingDelivery> batch = new ArrayList<>(batchSize);
      try {
        PendingDelivery first = inbox.poll(200, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        inbox.drainTo(batch, batchSize - 1);
        handle(batch);
        restartDelay = FIRST_RESTART_DELAY_MS;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Throwable t) {
        // Never let a bug, or an Error, end the consumer thread while the consumer keeps filling the inbox.
        if (!restartAfter(t, batch, restartDelay)) {
          return;
        }
        restartDelay = Math.min(MAX_RESTART_DELAY_MS, restartDelay * 2);
      }
    }
  }

  /**
   * Leaves the batch unsettled, drops the channel (the broker redelivers whatever it holds unacknowledged, to any
   * lane, and the registry subscribes this lane again) and waits before the loop goes on.
   *
   * @return false when interrupted (stopping)
   */
  private boolean restartAfter(Throwable failure, List<PendingDelivery> batch, long delayMs) {
    restarting = failure.toString();
    try {
      LOG.error("Step loop {} failed on a batch of {}: the events stay unacknowledged and are redelivered; the loop "
          + "starts again in {} ms", index, batch.size(), delayMs, failure);
      stepLoop.leftUnsettled(batch);
      synchronized (this) {
        channel.failed();
        consumerTags.clear();
      }
      inbox.clear(); // received on the dropped channel: the broker redelivers them
      Thread.sleep(delayMs);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Throwable again) {
      // Logging or cleaning up failed too (out of memory?): keep the lane alive all the same.
      return true;
    } finally {
      restarting = null;
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
