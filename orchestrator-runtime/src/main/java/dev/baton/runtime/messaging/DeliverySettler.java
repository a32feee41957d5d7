package dev.baton.runtime.messaging;

import dev.baton.contract.Names;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.metrics.RuntimeMetrics.ParkReason;
import java.io.IOException;
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
