package dev.baton.worker;

/** Decides what becomes of one delivery of one queue; runs the handler. Never touches the channel. */
interface DeliveryProcessor {

  /** Never throws: every failure is part of the decision. */
  DeliveryDecision decide(InboundMessage message);
}
