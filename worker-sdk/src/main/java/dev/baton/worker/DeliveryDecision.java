package dev.baton.worker;

import dev.baton.messaging.OutboundMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What to do with one delivery, decided before anything touches the channel: publish these messages and ack once
 * every one of them is confirmed, reject it to the queue's dead-letter path, decide again later (its duplicate is
 * still in a handler), or wait for the decision of a handler that outlived its time limit. The
 * {@link DeliverySettler} carries out acks and rejects; it is the only class that acks or nacks.
 *
 * @param later for {@link #later}: completes when the delivery should be decided again; null otherwise
 * @param overdue for {@link #overdue}: the decision the handler's end brings; null otherwise
 */
record DeliveryDecision(List<OutboundMessage> publishes, boolean rejected, CompletableFuture<Void> later,
    CompletableFuture<DeliveryDecision> overdue) {

  DeliveryDecision {
    publishes = List.copyOf(publishes);
  }

  /** Ack now (a handled subscription event, a duplicate with nothing to re-publish). */
  static DeliveryDecision ack() {
    return new DeliveryDecision(List.of(), false, null, null);
  }

  /** Publish these (in order) with confirms, then ack. */
  static DeliveryDecision publishThenAck(List<OutboundMessage> publishes) {
    return new DeliveryDecision(publishes, false, null, null);
  }

  static DeliveryDecision publishThenAck(OutboundMessage publish) {
    return publishThenAck(List.of(publish));
  }

  /**
   * Nack without requeue: the broker dead-letters it along the queue's own path (the first retry tier, or the
   * parking lot). Only for when the SDK itself cannot build a decision.
   */
  static DeliveryDecision reject() {
    return new DeliveryDecision(List.of(), true, null, null);
  }

  /** Nothing now: the same message is being handled by another delivery; decide again once that one is over. */
  static DeliveryDecision later(CompletableFuture<Void> when) {
    return new DeliveryDecision(List.of(), false, when, null);
  }

  /**
   * Nothing yet: the handler outlived its time limit and still runs. The channel goes on with the deliveries behind
   * this one, which stays unacked (holding a prefetch slot) until {@code decision} (what the handler's end brings)
   * is carried out.
   */
  static DeliveryDecision overdue(CompletableFuture<DeliveryDecision> decision) {
    return new DeliveryDecision(List.of(), false, null, decision);
  }

  /** What {@code deciding} finally decides: for an {@link #overdue} one, what its handler's end brings. */
  static CompletableFuture<DeliveryDecision> eventually(CompletableFuture<DeliveryDecision> deciding) {
    return deciding.thenCompose(d -> d.overdue() != null ? d.overdue() : CompletableFuture.completedFuture(d));
  }
}
