package dev.baton.worker;

import dev.baton.contract.Headers;
import java.time.Duration;

/**
 * How long a handler may run and how large its result may be.
 *
 * @param handlerTimeout the longest any handler may run; a command carrying {@link Headers#STEP_TIMEOUT} gets the
 *     smaller of the two (the orchestrator stops waiting for the step then, so a later result is of no use)
 * @param maxResultBytes the largest result event body published; a larger one fails the command with
 *     {@link PayloadTooLargeException#CODE}
 */
record HandlerLimits(Duration handlerTimeout, int maxResultBytes) {

  /** Used when nothing else is configured and a command carries no step timeout (its step has none). */
  static final Duration DEFAULT_HANDLER_TIMEOUT = Duration.ofMinutes(10);
  /**
   * 16 MiB: RabbitMQ 4's default {@code max_message_size} (3.x allowed 128 MiB); a larger event would be refused by
   * such a broker, and every later command of its instance carries the output again.
   */
  static final int DEFAULT_MAX_RESULT_BYTES = 16 * 1024 * 1024;

  static final HandlerLimits DEFAULTS = new HandlerLimits(DEFAULT_HANDLER_TIMEOUT, DEFAULT_MAX_RESULT_BYTES);

  HandlerLimits {
    positive(handlerTimeout, "the handler timeout");
    atLeastOne(maxResultBytes, "maxResultBytes");
  }

  static Duration positive(Duration d, String what) {
    if (d == null || d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
    return d;
  }

  static int atLeastOne(int n, String what) {
    if (n < 1) {
      throw new IllegalArgumentException(what + " must be at least 1, got " + n);
    }
    return n;
  }

  /** The timeout of this message's handler. */
  Duration timeoutFor(InboundMessage message) {
    Long stepTimeoutMs;
    try {
      stepTimeoutMs = HeaderValues.number(message.rawHeaders().get(Headers.STEP_TIMEOUT));
    } catch (NumberFormatException e) {
      stepTimeoutMs = null; // an unreadable hint is no reason to refuse the command
    }
    if (stepTimeoutMs == null || stepTimeoutMs <= 0) {
      return handlerTimeout;
    }
    Duration step = Duration.ofMillis(stepTimeoutMs);
    return step.compareTo(handlerTimeout) < 0 ? step : handlerTimeout;
  }
}
