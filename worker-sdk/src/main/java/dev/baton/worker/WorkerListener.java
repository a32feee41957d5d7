package dev.baton.worker;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.EventResult;
import java.time.Duration;

/**
 * Hooks for metrics and alerts, called on the consumer thread right after the SDK decided what to do with a
 * delivery. Keep them fast; an exception thrown here is logged and ignored. {@code consumer} is the command or
 * subscription name.
 */
public interface WorkerListener {

  /** A handler returned: {@code success} or {@code failed} for commands, {@code success} for subscriptions. */
  default void handled(String consumer, EventResult result, Duration took) {}

  /** A handler threw and the message goes to retry tier {@code retry} (1 for the first retry). */
  default void retried(String consumer, int retry, BatonDuration delay, Throwable failure) {}

  /** A message was parked in its dead-letter queue: retries spent, or unprocessable. */
  default void deadLettered(String consumer, String exceptionType, String reason) {}

  /** A duplicate delivery was answered from the {@link IdempotencyStore} without running the handler. */
  default void duplicate(String consumer, String key) {}

  /** The listener that does nothing. */
  WorkerListener NONE = new WorkerListener() {};
}
