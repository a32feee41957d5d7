package dev.baton.runtime.events;

import com.rabbitmq.client.Channel;
import dev.baton.contract.Names;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.runtime.metrics.RuntimeMetrics.ParkReason;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.tracing.InstanceTracing;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where an event delivery of an orchestrator queue is settled (the worker SDK's {@code DeliverySettler}
 * does the same for commands). Callers come here only once its fate is known: after the transaction that recorded
 * its effect has committed (ACK), or when it cannot be used (park, then ACK once the parked copy is confirmed). A
 * delivery whose transaction could not run is not settled at all: it stays unacknowledged and is retried, or
 * redelivered by the broker if this process dies. Nothing is ever auto-acked, acked "in finally" or rejected.
 */
final class EventSettler {

  private static final Logger LOG = LoggerFactory.getLogger(EventSettler.class);

  private final ParkingLot parkingLot;
  private final RuntimeMetrics metrics;
  /** Channels holding a delivery left unsettled on purpose: never ACK "multiple" on them. */
  private final Set<Channel> noMultipleAck = ConcurrentHashMap.newKeySet();
  /** Parks under way per channel: their deliveries are not ACKed yet, so no ACK "multiple" may cover them. */
  private final Map<Channel, AtomicInteger> parking = new ConcurrentHashMap<>();

  EventSettler(ParkingLot parkingLot, RuntimeMetrics metrics) {
    this.parkingLot = parkingLot;
    this.metrics = metrics;
  }

  /** The delivery's effect is committed (or it is a duplicate, stale or foreign event): remove it from the queue. */
  void ack(PendingDelivery d) {
    try {
      d.channel().basicAck(d.envelope().getDeliveryTag(), false);
    } catch (IOException | RuntimeException e) {
      // The channel went away: the broker redelivers, and the redelivery is recognised as a duplicate.
      LOG.debug("Could not ACK delivery {} of {}: {}", d.envelope().getDeliveryTag(), d.workflow(), e.toString());
    }
  }

  /**
   * ACKs the deliveries of a whole batch whose effects are committed, with one {@code basic.ack multiple} per
   * channel (one frame instead of one per event). The caller guarantees that every other delivery of the batch was
   * settled already or is being parked; every earlier delivery of the channel was settled by an earlier batch (a
   * lane handles its deliveries in order, one batch after the other). On a channel marked with
   * {@link #neverAckMultiple}, or with a park still waiting for its confirm, each delivery is ACKed alone.
   */
  void ackBatch(List<PendingDelivery> deliveries) {
    Map<Channel, PendingDelivery> highest = new LinkedHashMap<>();
    for (PendingDelivery d : deliveries) {
      if (noMultipleAck.contains(d.channel()) || parksUnderWay(d.channel())) {
        ack(d);
      } else {
        highest.merge(d.channel(), d,
            (a, b) -> a.envelope().getDeliveryTag() >= b.envelope().getDeliveryTag() ? a : b);
      }
    }
    for (PendingDelivery d : highest.values()) {
      try {
        d.channel().basicAck(d.envelope().getDeliveryTag(), true);
      } catch (IOException | RuntimeException e) {
        LOG.debug("Could not ACK deliveries up to {} of {}: {}", d.envelope().getDeliveryTag(), d.workflow(),
            e.toString());
      }
    }
  }

  /**
   * These deliveries stay unsettled (left for the broker to redeliver): from now on their channel's deliveries are
   * ACKed one by one, so that a later ACK never covers them.
   */
  void neverAckMultiple(Collection<PendingDelivery> unsettled) {
    for (PendingDelivery d : unsettled) {
      noMultipleAck.add(d.channel());
    }
  }

  /**
   * Parks the delivery with a reason and ACKs it once the parked copy is confirmed; returns at once (the lane goes
   * on). Until then the delivery stays unacknowledged: if parking keeps failing it is retried with a backoff, and if
   * its channel closes meanwhile the broker redelivers it. It is never rejected: the queue's dead-letter path leads
   * to the very parking queue that may be missing.
   */
  void park(PendingDelivery d, String reason, String type, ParkReason metricReason) {
    String parkingQueue = Names.orchestratorDeadLetterQueue(d.workflow());
    try (LogFields.Scope fields = InstanceTracing.logFieldsOf(d.props().getHeaders(), null, d.workflow())) {
      LOG.warn("Parking an event of workflow {} in {} (routing key {}, message id {}): {}", d.workflow(), parkingQueue,
          d.envelope().getRoutingKey(), d.props().getMessageId(), reason);
    }
    metrics.parked(d.namespaceLabel(), d.workflow(), metricReason);
    AtomicInteger underWay = parking.computeIfAbsent(d.channel(), c -> new AtomicInteger());
    underWay.incrementAndGet();
    parkingLot.park(d, reason, type).whenComplete((parked, e) -> {
      if (Boolean.TRUE.equals(parked)) {
        ack(d);
      }
      underWay.decrementAndGet();
    });
  }

  private boolean parksUnderWay(Channel channel) {
    AtomicInteger n = parking.get(channel);
    return n != null && n.get() > 0;
  }
}
