package dev.baton.worker;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.HashMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where deliveries of a channel are acked or nacked (like the listener container of spring-amqp).
 *
 * <p>It publishes what a {@link DeliveryDecision} asks for on the consuming channel (in confirm mode) and acks the
 * delivery only when the broker has confirmed every one of those publishes. Confirms arrive asynchronously, so the
 * consumer thread moves on to the next delivery meanwhile; prefetch bounds how many wait. The outcome of a publish
 * decides the delivery's fate:
 * <ul>
 *   <li>all confirmed: ack;</li>
 *   <li>any nacked by the broker: nack with requeue, so it comes back (the idempotency store keeps the handler from
 *       running twice);</li>
 *   <li>any returned as unroutable (retries and dead letters are mandatory): nack without requeue, so the queue's
 *       own dead-letter path (first tier or parking lot) keeps it instead of it vanishing;</li>
 *   <li>channel closed before the confirms: nothing; the broker redelivers every unacked delivery.</li>
 * </ul>
 *
 * <p>Confirm, return and shutdown callbacks run on the connection's I/O thread; the lock orders them with the
 * publishes of the consumer thread. After a channel shutdown the publish sequence restarts (also on automatic
 * recovery), so each shutdown starts a new generation and deliveries of an older one are never settled.
 */
final class DeliverySettler implements ConfirmListener, ReturnListener, ShutdownListener {

  private static final Logger LOG = LoggerFactory.getLogger(DeliverySettler.class);

  private final Channel channel;
  private final InFlight inFlight;
  private final String queue;

  /** Publish sequence number → the publish and the delivery waiting for it. */
  private final TreeMap<Long, Publish> unconfirmed = new TreeMap<>();
  /** Tags of the deliveries handed to the settler and not settled yet, oldest first. */
  private final TreeSet<Long> open = new TreeSet<>();
  private boolean multipleAllowed = true;
  private long generation;

  DeliverySettler(Channel channel, InFlight inFlight, String queue) {
    this.channel = channel;
    this.inFlight = inFlight;
    this.queue = queue;
  }

  synchronized long generation() {
    return generation;
  }

  /** Carries out a decision for a delivery that arrived in {@code generation}; called on the consumer thread. */
  synchronized void settle(long generation, long deliveryTag, DeliveryDecision decision) {
    Delivery delivery = new Delivery(deliveryTag, decision.publishes().size());
    if (generation != this.generation) {
      delivery.abandon();
      return;
    }
    open.add(deliveryTag);
    if (decision.rejected()) {
      delivery.rejected = true;
      delivery.finish();
      return;
    }
    if (decision.publishes().isEmpty()) {
      delivery.finish();
      return;
    }
    for (OutboundMessage message : decision.publishes()) {
      long seq = channel.getNextPublishSeqNo();
      unconfirmed.put(seq, new Publish(delivery, message));
      try {
        channel.basicPublish(message.exchange(), message.routingKey(), message.mandatory(), message.properties(),
            message.body());
      } catch (IOException | AlreadyClosedException e) {
        LOG.warn("{}: could not publish {} ({}); the broker will redeliver the message", queue, message.what(),
            e.getMessage());
        unconfirmed.values().removeIf(p -> p.delivery == delivery);
        delivery.abandon();
        // Left unacked for the broker to redeliver: no later ACK "multiple" may cover it.
        multipleAllowed = false;
        return;
      }
    }
  }

  /**
   * Gives a delivery back to the queue unprocessed, for another consumer (the worker is shutting down). The caller
   * keeps its in-flight count.
   */
  void release(long deliveryTag) {
    try {
      channel.basicNack(deliveryTag, false, true);
    } catch (IOException | AlreadyClosedException e) {
      LOG.debug("{}: release of delivery {} not sent, channel closed: the broker requeues it anyway", queue,
          deliveryTag);
    }
  }

  @Override
  public synchronized void handleAck(long seq, boolean multiple) {
    confirmed(seq, multiple, true);
  }

  @Override
  public synchronized void handleNack(long seq, boolean multiple) {
    confirmed(seq, multiple, false);
  }

  private void confirmed(long seq, boolean multiple, boolean ok) {
    Map<Long, Publish> done = multiple ? unconfirmed.headMap(seq, true) : unconfirmed.subMap(seq, true, seq, true);
    List<Publish> publishes = new ArrayList<>(done.values());
    done.clear();
    List<Delivery> acks = new ArrayList<>(publishes.size());
    for (Publish p : publishes) {
      if (!ok) {
        LOG.warn("{}: the broker refused {}; the message is requeued", queue, p.message.what());
        p.delivery.nacked = true;
      }
      if (--p.delivery.outstanding == 0) {
        if (p.delivery.nacked || p.delivery.returned || p.delivery.rejected) {
          p.delivery.finish();
        } else {
          acks.add(p.delivery);
        }
      }
    }
    ackTogether(acks);
  }

  /**
   * ACKs deliveries whose publishes are all confirmed. The longest run of the oldest unsettled deliveries that are
   * all among them goes with ONE {@code basic.ack multiple} (one frame for the broker instead of one per delivery);
   * the others are ACKed one by one. "Multiple" covers every unacked delivery up to the tag, so it is used only when
   * every unsettled delivery up to that tag is being ACKed now: deliveries still in a handler (not yet handed to the
   * settler) always have higher tags, since a channel's deliveries are handled in order.
   */
  private void ackTogether(List<Delivery> acks) {
    if (acks.isEmpty()) {
      return;
    }
    if (acks.size() > 1 && multipleAllowed) {
      Map<Long, Delivery> byTag = new HashMap<>();
      for (Delivery d : acks) {
        byTag.put(d.tag, d);
      }
      List<Delivery> run = new ArrayList<>();
      for (Long tag : open) {
        Delivery d = byTag.get(tag);
        if (d == null) {
          break;
        }
        run.add(d);
      }
      if (run.size() > 1) {
        long upTo = run.get(run.size() - 1).tag;
        LOG.debug("{}: settling deliveries up to {} ({} at once)", queue, upTo, run.size());
        try {
          channel.basicAck(upTo, true);
        } catch (IOException | AlreadyClosedException e) {
          LOG.debug("{}: settling deliveries up to {} not sent, channel closed: the broker redelivers them", queue,
              upTo);
        }
        for (Delivery d : run) {
          d.settledTogether();
          byTag.remove(d.tag);
        }
        acks = new ArrayList<>(byTag.values());
      }
    }
    for (Delivery d : acks) {
      d.finish();
    }
  }

  /** A mandatory publish no queue was bound for; the broker sends this before the publish's confirm. */
  @Override
  public synchronized void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
      AMQP.BasicProperties properties, byte[] body) {
    String messageId = properties == null ? null : properties.getMessageId();
    for (Publish p : unconfirmed.values()) {
      OutboundMessage m = p.message;
      if (!p.returned && m.exchange().equals(exchange) && m.routingKey().equals(routingKey)
          && Objects.equals(m.properties().getMessageId(), messageId)) {
        p.returned = true;
        p.delivery.returned = true;
        LOG.error("{}: {} was unroutable ({} {}): exchange {} has no queue bound for {}; is the topology out of "
            + "date? Rejecting the delivery to the queue's own dead-letter path", queue, m.what(), replyCode,
            replyText, exchange, routingKey);
        return;
      }
    }
  }

  /** Publishes still unconfirmed now never will be; their deliveries come back from the broker. */
  @Override
  public synchronized void shutdownCompleted(ShutdownSignalException cause) {
    generation++;
    for (Iterator<Publish> it = unconfirmed.values().iterator(); it.hasNext(); ) {
      it.next().delivery.abandon();
      it.remove();
    }
    open.clear(); // the channel's unacked deliveries go back to the queue; tags of the next generation start anew
  }

  /** One publish waiting for its confirm; guarded by the settler's lock. */
  private static final class Publish {
    final Delivery delivery;
    final OutboundMessage message;
    boolean returned;

    Publish(Delivery delivery, OutboundMessage message) {
      this.delivery = delivery;
      this.message = message;
    }
  }

  /** One delivery waiting for its publishes; guarded by the settler's lock. */
  private final class Delivery {
    final long tag;
    int outstanding;
    boolean nacked;
    boolean returned;
    boolean rejected;
    boolean settled;

    Delivery(long tag, int outstanding) {
      this.tag = tag;
      this.outstanding = outstanding;
    }

    /** Acks or nacks: the only basicAck/basicNack of a processed delivery. */
    /** ACKed by an ACK "multiple" of a later delivery. */
    void settledTogether() {
      if (!settled) {
        settled = true;
        open.remove(tag);
        inFlight.end();
      }
    }

    void finish() {
      if (settled) {
        return;
      }
      settled = true;
      open.remove(tag);
      LOG.debug("{}: settling delivery {} (nacked={}, returned={}, rejected={})", queue, tag, nacked, returned,
          rejected);
      try {
        if (nacked) {
          channel.basicNack(tag, false, true);
        } else if (returned || rejected) {
          channel.basicNack(tag, false, false);
        } else {
          channel.basicAck(tag, false);
        }
      } catch (IOException | AlreadyClosedException e) {
        LOG.debug("{}: settling delivery {} not sent, channel closed: the broker redelivers it", queue, tag);
      } finally {
        inFlight.end();
      }
    }

    /** The channel went away: the broker redelivers; only the in-flight count is settled. */
    void abandon() {
      if (!settled) {
        LOG.debug("{}: abandoning delivery {}", queue, tag);
        settled = true;
        open.remove(tag);
        inFlight.end();
      }
    }
  }
}
