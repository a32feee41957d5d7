package dev.baton.contract;

import java.util.Optional;

/**
 * How a workflow instance ended: the last word of its outcome event's routing key
 * ({@link Names#instanceOutcomeRoutingKey}, docs/message-contract.md#instance-outcomes). One per ending status of the
 * runtime; an instance that is retried and ends again has a second outcome.
 */
public enum InstanceOutcome {
  /** Every step succeeded. */
  SUCCEEDED("succeeded"),
  /** A step failed and nothing was undone (onFailure Stop, no compensable step, or a compensation failed). */
  FAILED("failed"),
  /** A step failed and the completed steps were undone. */
  COMPENSATED("compensated"),
  /** Cancelled through the API (after undoing the completed steps when the cancel asked to compensate). */
  CANCELLED("cancelled");

  private final String key;

  InstanceOutcome(String key) {
    this.key = key;
  }

  /** The word in the routing key, e.g. {@code failed}. */
  public String key() {
    return key;
  }

  public static Optional<InstanceOutcome> fromKey(String key) {
    for (InstanceOutcome o : values()) {
      if (o.key.equals(key)) {
        return Optional.of(o);
      }
    }
    return Optional.empty();
  }

  /** The outcome of a routing key {@code <namespace>.<workflow>.<outcome>}, if it ends with one. */
  public static Optional<InstanceOutcome> fromRoutingKey(String routingKey) {
    if (routingKey == null) {
      return Optional.empty();
    }
    int dot = routingKey.lastIndexOf('.');
    return dot < 0 ? Optional.empty() : fromKey(routingKey.substring(dot + 1));
  }
}
