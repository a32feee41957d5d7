package dev.baton.worker;

import java.util.List;

/**
 * What to do with one delivery, decided before anything touches the channel: publish these messages and ack once
 * every one of them is confirmed, or reject it to the queue's dead-letter path. The {@link DeliverySettler} carries
 * it out; it is the only class that acks or nacks.
 */
record DeliveryDecision(List<OutboundMessage> publishes, boolean rejected) {

  DeliveryDecision {
    publishes = List.copyOf(publishes);
  }

  /** Ack now (a handled subscription event, a duplicate with nothing to re-publish). */
  static DeliveryDecision ack() {
    return new DeliveryDecision(List.of(), false);
  }

  /** Publish these (in order) with confirms, then ack. */
  static DeliveryDecision publishThenAck(List<OutboundMessage> publishes) {
    return new DeliveryDecision(publishes, false);
  }

  static DeliveryDecision publishThenAck(OutboundMessage publish) {
    return publishThenAck(List.of(publish));
  }

  /**
   * Nack without requeue: the broker dead-letters it along the queue's own path (the first retry tier, or the
   * parking lot). Only for when the SDK itself cannot build a decision.
   */
  static DeliveryDecision reject() {
    return new DeliveryDecision(List.of(), true);
  }
}
