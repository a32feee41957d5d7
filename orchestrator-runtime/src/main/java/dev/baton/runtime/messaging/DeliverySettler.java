package dev.baton.runtime.messaging;

import dev.baton.contract.Names;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.metrics.RuntimeMetrics.ParkReason;
import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where a delivery is settled. Callers come here only once its fate is known: after the transaction
 * that recorded its effect has committed (ACK), or when it cannot be used (park, then ACK). A delivery whose
 * transaction could not run is not settled at all: it stays unacknowledged and is retried, or redelivered by the
 * broker if this process dies. Nothing is ever auto-acked or acked "in finally".
 */
final class DeliverySettler {

  private static final Logger LOG = LoggerFactory.getLogger(DeliverySettler.class);

  private final ParkingLot parking;
  private final RuntimeMetrics metrics;
  /** Channels holding a delivery left unsettled on purpose: never ACK "multiple" on them. */
  private final Set<Channel> noMultipleAck = ConcurrentHashMap.newKeySet();

  DeliverySettler(ParkingLot parking, RuntimeMetrics metrics) {
    this.parking = parking;
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
   * settled already; every earlier delivery of the channel was settled by an earlier batch (a lane handles its
   * deliveries in order, one batch after the other), unless the channel was marked with
   * {@link #neverAckMultiple}, in which case each delivery is ACKed alone.
   */
  void ackBatch(List<PendingDelivery> deliveries) {
    Map<Channel, PendingDelivery> highest = new LinkedHashMap<>();
    for (PendingDelivery d : deliveries) {
      if (noMultipleAck.contains(d.channel())) {
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
   * Parks the delivery with a reason, then ACKs it. If parking fails, the delivery is rejected without requeue: the
   * orchestrator queue dead-letters into the same parking queue (a safety net the operator declares), which keeps
   * the message but not the reason, so the reason goes to the log.
   */
  void park(PendingDelivery d, String reason, String type, ParkReason metricReason) {
    String parkingQueue = Names.orchestratorDeadLetterQueue(d.workflow());
    LOG.warn("Parked an event of workflow {} in {} (routing key {}, message id {}): {}", d.workflow(), parkingQueue,
        d.envelope().getRoutingKey(), d.props().getMessageId(), reason);
    metrics.parked(d.workflow(), metricReason);
    boolean parked = parking.park(d.workflow(), d.envelope().getExchange(), d.envelope().getRoutingKey(), d.props(),
        d.body(), reason, type);
    if (parked) {
      ack(d);
      return;
    }
    LOG.error("Rejecting the event instead (the queue dead-letters it to {}); reason it was refused: {}",
        parkingQueue, reason);
    try {
      d.channel().basicNack(d.envelope().getDeliveryTag(), false, false);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Could not reject delivery {}: {}", d.envelope().getDeliveryTag(), e.toString());
    }
  }
}
