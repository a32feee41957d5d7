package dev.baton.worker;

import dev.baton.contract.BatonDuration;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The SDK's own knobs in the environment (the operator does not set them; a WorkerService's pod template may):
 * {@value #HANDLER_TIMEOUT} and {@value #MAX_RESULT_BYTES}. A malformed value fails the start, naming the variable.
 */
final class WorkerSettings {

  static final String HANDLER_TIMEOUT = "BATON_HANDLER_TIMEOUT";
  static final String MAX_RESULT_BYTES = "BATON_MAX_RESULT_BYTES";

  private WorkerSettings() {}

  static Optional<Duration> handlerTimeout(Map<String, String> env) {
    String v = value(env, HANDLER_TIMEOUT);
    if (v == null) {
      return Optional.empty();
    }
    if (!BatonDuration.isValid(v) || BatonDuration.parse(v).toMillis() <= 0) {
      throw new IllegalArgumentException(HANDLER_TIMEOUT + ": expected a duration such as 30s, got '" + v + "'");
    }
    return Optional.of(BatonDuration.parse(v).toDuration());
  }

  static Optional<Integer> maxResultBytes(Map<String, String> env) {
    String v = value(env, MAX_RESULT_BYTES);
    if (v == null) {
      return Optional.empty();
    }
    try {
      int n = Integer.parseInt(v);
      if (n >= 1) {
        return Optional.of(n);
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(MAX_RESULT_BYTES + ": expected a number of bytes of at least 1, got '" + v
        + "'");
  }

  private static String value(Map<String, String> env, String name) {
    String v = env.get(name);
    return v == null || v.isBlank() ? null : v.trim();
  }
}
