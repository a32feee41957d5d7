package dev.baton.worker;

import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where the deliveries of a consuming channel are acked or nacked (like the listener container of
 * spring-amqp); the orchestrator runtime's {@code EventSettler} is its counterpart for events.
 *
 * <p>Every delivery is registered when it arrives, in delivery-tag order, and stays open until it is settled: acked
 * once the broker confirmed everything its decision published (on the worker's publisher connection), rejected to
 * the queue's dead-letter path, released back to the queue (shutdown), or abandoned (its channel went away, or the
 * worker stops before it could be settled: the broker redelivers it). Acks are coalesced: the deliveries ready by the
 * time the ack task runs that form the oldest run of open deliveries go with ONE {@code basic.ack multiple} (one frame
 * for the broker instead of one per delivery); ready ones after a gap are acked one by one. "Multiple" covers every
 * unacked delivery up to its tag, so it is used only while no delivery was ever left unacked on purpose in the
 * channel's current generation.
 *
 * <p>A channel shutdown starts a new generation (also under automatic recovery, which numbers deliveries anew):
 * deliveries of an older one are never settled, the broker has them back already.
 */
final class DeliverySettler implements ShutdownListener {

  private static final Logger LOG = LoggerFactory.getLogger(DeliverySettler.class);

  private final Channel channel;
  private final InFlight inFlight;
  private final String queue;
  private final Executor acks;

  /** Deliveries registered and not settled yet, by tag (oldest first). */
  private final TreeMap<Long, Delivery> open = new TreeMap<>();
  private boolean multipleAllowed = true;
  private boolean flushPending;
  private long generation;
  /** Completes when the current generation ends (the channel shuts down). */
  private CompletableFuture<Void> generationEnded = new CompletableFuture<>();

  /** @param acks where acks are sent from (never the publisher connection's I/O thread, which completes confirms) */
  DeliverySettler(Channel channel, InFlight inFlight, String queue, Executor acks) {
    this.channel = channel;
    this.inFlight = inFlight;
    this.queue = queue;
    this.acks = acks;
  }

  /** A delivery arrived (on the client's dispatch thread, in tag order): it counts as in flight until settled. */
  synchronized Delivery arrived(long tag) {
    inFlight.begin();
    Delivery d = new Delivery(tag, generation, generationEnded);
    open.put(tag, d);
    return d;
  }

  /**
   * The channel is gone: nothing open can be settled on it any more, the broker redelivers it all. A delivery whose
   * handler still runs stays in flight until the handler is over ({@link Delivery#decided}), so that a graceful
   * shutdown still waits for it.
   */
  @Override
  public void shutdownCompleted(ShutdownSignalException cause) {
    CompletableFuture<Void> ended;
    synchronized (this) {
      ended = generationEnded;
      generationEnded = new CompletableFuture<>();
      endGeneration();
    }
    ended.complete(null); // outside the lock: waiters go on with other work
  }

  private void endGeneration() {
    generation++;
    for (Delivery d : open.values()) {
      if (!d.processing) {
        d.settled = true;
        inFlight.end();
      }
    }
    open.clear(); // tags of the next generation start anew
    multipleAllowed = true;
  }

  private void scheduleFlush() {
    synchronized (this) {
      if (flushPending) {
        return;
      }
      flushPending = true;
    }
    try {
      acks.execute(this::flush);
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        flushPending = false;
      }
      LOG.debug("{}: acks not sent, the worker is closing: the broker redelivers them", queue);
    }
  }

  /** Acks what is ready: the oldest run of open deliveries with one frame, the rest one by one. */
  private synchronized void flush() {
    flushPending = false;
    List<Delivery> run = new ArrayList<>();
    for (Delivery d : open.values()) {
      if (!d.ready) {
        break;
      }
      run.add(d);
    }
    if (run.size() > 1 && multipleAllowed) {
      long upTo = run.get(run.size() - 1).tag;
      LOG.debug("{}: settling deliveries up to {} ({} at once)", queue, upTo, run.size());
      send(() -> channel.basicAck(upTo, true), upTo);
      run.forEach(Delivery::done);
    }
    for (Delivery d : List.copyOf(open.values())) {
      if (d.ready) {
        send(() -> channel.basicAck(d.tag, false), d.tag);
        d.done();
      }
    }
  }

  @FunctionalInterface
  private interface Frame {
    void send() throws IOException;
  }

  private void send(Frame frame, long tag) {
    try {
      frame.send();
    } catch (IOException | AlreadyClosedException e) {
      LOG.debug("{}: settling delivery {} not sent, channel closed: the broker redelivers it", queue, tag);
    }
  }

  /** One delivery between its arrival and its settlement; every state change under the settler's lock. */
  final class Delivery {
    final long tag;
    private final long generationAtArrival;
    private boolean ready;
    private boolean processing;
    private boolean settled;

    private final CompletableFuture<Void> channelGone;

    private Delivery(long tag, long generation, CompletableFuture<Void> channelGone) {
      this.tag = tag;
      this.generationAtArrival = generation;
      this.channelGone = channelGone;
    }

    /** Completes when the channel it came on goes away (then it can no longer be settled). */
    CompletableFuture<Void> channelGone() {
      return channelGone;
    }

    /** Whether it can no longer be settled on this channel (the channel went away; the broker has it back). */
    boolean stale() {
      synchronized (DeliverySettler.this) {
        return settled || generationAtArrival != generation;
      }
    }

    /** Its handling starts; false (and settled) when its channel went away meanwhile. */
    boolean startProcessing() {
      synchronized (DeliverySettler.this) {
        if (settled) {
          return false;
        }
        if (generationAtArrival != generation) {
          done();
          return false;
        }
        processing = true;
        return true;
      }
    }

    /**
     * Its handling is over (a decision was made); false (and settled) when its channel went away meanwhile: its
     * decision is not carried out, the broker redelivers it.
     */
    boolean decided() {
      synchronized (DeliverySettler.this) {
        processing = false;
        if (settled) {
          return false;
        }
        if (generationAtArrival != generation) {
          done();
          return false;
        }
        return true;
      }
    }

    /** Everything its decision needed is confirmed: ack it (soon, together with others where possible). */
    void ack() {
      synchronized (DeliverySettler.this) {
        if (settled || ready) {
          return;
        }
        if (generationAtArrival != generation) {
          done(); // the broker has it back
          return;
        }
        ready = true;
      }
      scheduleFlush();
    }

    /** Nack without requeue: the queue's own dead-letter path (first tier or parking lot) keeps it. */
    void reject() {
      nack(false);
    }

    /** Back to the queue unprocessed, for another consumer (the worker is shutting down). */
    void release() {
      nack(true);
    }

    private void nack(boolean requeue) {
      synchronized (DeliverySettler.this) {
        if (!settled) {
          if (generationAtArrival == generation) {
            send(() -> channel.basicNack(tag, false, requeue), tag);
          }
          done();
        }
      }
    }

    /**
     * Left unsettled: its channel went away (the broker has it back), or it is given up while the channel is still
     * open (the broker redelivers it once the channel closes; no later ACK "multiple" may cover it meanwhile).
     */
    void abandon() {
      synchronized (DeliverySettler.this) {
        if (settled) {
          return;
        }
        if (generationAtArrival == generation) {
          multipleAllowed = false;
        }
        LOG.debug("{}: abandoning delivery {}", queue, tag);
        done();
      }
    }

    private void done() {
      settled = true;
      open.remove(tag, this);
      inFlight.end();
    }
  }

  /** For tests: open deliveries by tag. */
  synchronized Map<Long, Boolean> openDeliveries() {
    Map<Long, Boolean> m = new TreeMap<>();
    open.forEach((tag, d) -> m.put(tag, d.ready));
    return m;
  }
}
