package dev.baton.worker;

import java.util.concurrent.CompletableFuture;

/** Decides what becomes of one delivery of one queue; runs the handler. Never touches the channel. */
interface DeliveryProcessor {

  /**
   * Never throws, and the future fails only with a {@link VirtualMachineError} (not the message's fault): every other
   * failure is part of the decision. It completes once the handler is over, or with
   * {@link DeliveryDecision#overdue} once it outlived its time limit.
   */
  CompletableFuture<DeliveryDecision> decide(InboundMessage message);
}
