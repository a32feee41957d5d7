package dev.baton.worker;

import dev.baton.contract.Headers;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * How long a handler may run and how large its result may be.
 *
 * @param handlerTimeout the longest any handler may run; a command carrying {@link Headers#STEP_TIMEOUT} gets the
 *     smaller of the two (the orchestrator stops waiting for the step then, so a later result is of no use), and one
 *     carrying {@link Headers#DEADLINE} no more than the time left until it
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

  /** The timeout of this message's handler, from the configured one and its step's; see {@link #limitFor}. */
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

  /**
   * How long the handler of this command may run when it starts at {@code now}: {@link #timeoutFor}, and no longer
   * than the time left until its deadline (after it the runtime has timed the attempt out). At least a millisecond:
   * a command whose deadline has passed is not started at all ({@link #expiredBy}).
   */
  Duration limitFor(InboundMessage message, Instant now) {
    Duration limit = timeoutFor(message);
    Optional<Instant> deadline = deadline(message);
    if (deadline.isPresent()) {
      Duration left = Duration.between(now, deadline.get());
      if (left.compareTo(limit) < 0) {
        limit = left;
      }
    }
    return limit.compareTo(Duration.ofMillis(1)) < 0 ? Duration.ofMillis(1) : limit;
  }

  /**
   * A command's {@link Headers#DEADLINE}, or empty when it has none (its step has no timeout) or the value is not a
   * whole number of epoch milliseconds after 1970: an unreadable deadline is treated as absent, never as a reason to
   * refuse or to expire the command.
   */
  static Optional<Instant> deadline(InboundMessage message) {
    Object raw = message.rawHeaders().get(Headers.DEADLINE);
    Long millis = Headers.deadline(raw instanceof Number ? raw : HeaderValues.text(raw));
    return millis == null || millis <= 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(millis));
  }

  /** By how much this command's deadline had passed at {@code now}; empty when it has none or it is still ahead. */
  static Optional<Duration> expiredBy(InboundMessage message, Instant now) {
    return deadline(message).filter(d -> !now.isBefore(d)).map(d -> Duration.between(d, now));
  }
}
