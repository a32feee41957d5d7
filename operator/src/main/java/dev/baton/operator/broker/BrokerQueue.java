package dev.baton.operator.broker;

import java.util.Map;

/**
 * A queue as the broker reports it. {@code messages} counts ready and unacknowledged messages; the management API
 * refreshes it every few seconds, so decisions that must not lose messages ask the broker again (delete if-empty).
 */
public record BrokerQueue(String name, Map<String, Object> arguments, long messages, int consumers) {

  public BrokerQueue {
    arguments = arguments == null ? Map.of() : Map.copyOf(arguments);
  }
}
