package dev.baton.operator.broker;

import java.util.Map;

/**
 * A queue as the broker reports it. The management API samples its counts every few seconds, and a queue whose
 * statistics it has not collected yet has none: such counts are {@link #UNKNOWN}. Status and metrics show an unknown
 * count as 0 ({@link #depth()}); a decision that could lose messages treats it as "not empty" ({@link #isIdle()}).
 *
 * @param messages ready and unacknowledged messages, or {@link #UNKNOWN}
 * @param unacked messages delivered and not yet acknowledged, or {@link #UNKNOWN}
 * @param consumers consumers attached, or {@link #UNKNOWN}
 */
public record BrokerQueue(String name, Map<String, Object> arguments, long messages, long unacked, int consumers) {

  public static final int UNKNOWN = -1;

  public BrokerQueue {
    arguments = arguments == null ? Map.of() : Map.copyOf(arguments);
  }

  /** A queue with known counts and nothing unacknowledged. */
  public BrokerQueue(String name, Map<String, Object> arguments, long messages, int consumers) {
    this(name, arguments, messages, 0, consumers);
  }

  /** A queue just declared: empty, nobody attached. */
  public static BrokerQueue declared(String name, Map<String, Object> arguments) {
    return new BrokerQueue(name, arguments, 0, 0, 0);
  }

  /** Messages in it for display: an unknown count shows as 0. */
  public long depth() {
    return Math.max(0, messages);
  }

  /** Consumers for display: an unknown count shows as 0. */
  public int consumersShown() {
    return Math.max(0, consumers);
  }

  /** Whether a known count says the queue holds a message or has a consumer (unknown counts say nothing). */
  public boolean holdsOrServes() {
    return messages > 0 || unacked > 0 || consumers > 0;
  }

  /**
   * Whether the broker says, with every count known, that the queue holds no message (ready or unacknowledged) and
   * has no consumer: the only state in which Baton deletes a queue.
   */
  public boolean isIdle() {
    return messages == 0 && unacked == 0 && consumers == 0;
  }
}
