package dev.baton.runtime.events;

import dev.baton.runtime.core.InboundEvent;

/** What the parser made of a delivery. */
sealed interface ParsedDelivery {

  /** A well-formed event of this queue's workflow. */
  record Event(InboundEvent event) implements ParsedDelivery {}

  /** An event of another workflow that shares a binding with this queue: not ours, ACK and ignore. */
  record Foreign(String workflow) implements ParsedDelivery {}

  /** Not an event we can use: park it with the reason. */
  record Malformed(String reason) implements ParsedDelivery {}
}
