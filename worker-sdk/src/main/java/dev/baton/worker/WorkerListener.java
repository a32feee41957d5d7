package dev.baton.worker;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.EventResult;
import java.time.Duration;

/**
 * Hooks for metrics and alerts, called on the SDK's own threads (a consumer's or a handler's, as the SDK decides what
 * to do with a delivery; {@link #stuck} on its timer's) and possibly concurrently. Keep them fast and thread-safe; an
 * exception thrown here is logged and ignored. {@code consumer} is the command or subscription name.
 * {@link MicrometerWorkerListener} counts them in Micrometer ({@link BatonWorker.Builder#meterRegistry}).
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

  /**
   * A command reached the worker {@code late} after its deadline ({@code baton-deadline}): its handler was not run,
   * an {@code expired} event answered it.
   */
  default void expired(String consumer, String messageId, Duration late) {}

  /**
   * A handler is still running {@code running} after it started, well past its time limit (it was interrupted at the
   * limit and ignores it): its thread, its delivery and its message id stay taken until it returns. Called when it
   * has run twice its limit, then each time its running time doubles.
   */
  default void stuck(String consumer, String messageId, Duration running) {}

  /** The listener that does nothing. */
  WorkerListener NONE = new WorkerListener() {};
}
