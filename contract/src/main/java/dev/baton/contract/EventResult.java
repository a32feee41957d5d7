package dev.baton.contract;

import java.util.Optional;

/** The last word of an event routing key (docs/design.md#broker-names: the result lives in the key). */
public enum EventResult {
  /** The step did its work; the body holds {@code output}. */
  SUCCESS("success"),
  /** A business outcome: not retried; the body holds {@code errorCode} and {@code reason}. */
  FAILED("failed"),
  /** A technical failure after the worker's retries were spent; the body holds {@code errorCode} and {@code reason}. */
  ERROR("error"),
  /**
   * Not executed: the command reached the worker after its {@code baton-deadline}, so the worker did not start it;
   * the body holds {@code reason}.
   */
  EXPIRED("expired");

  private final String key;

  EventResult(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }

  public static Optional<EventResult> fromKey(String key) {
    for (EventResult r : values()) {
      if (r.key.equals(key)) {
        return Optional.of(r);
      }
    }
    return Optional.empty();
  }

  /** The result of an event routing key {@code E.<action>.<result>}, if it has that shape. */
  public static Optional<EventResult> fromRoutingKey(String routingKey) {
    if (routingKey == null) {
      return Optional.empty();
    }
    int dot = routingKey.lastIndexOf('.');
    return dot < 0 ? Optional.empty() : fromKey(routingKey.substring(dot + 1));
  }
}
