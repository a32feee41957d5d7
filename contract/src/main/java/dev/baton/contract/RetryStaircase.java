package dev.baton.contract;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * How a worker retries a command that fails technically (docs/design.md#retries-and-dead-letters, docs/design.md#resources RetryPolicy).
 *
 * <p>{@code maxAttempts} counts every delivery, the first included. Retry {@code k} (1-based, {@code k <
 * maxAttempts}) waits {@code delays[k-1]}; the last delay repeats. After {@code maxAttempts} deliveries the message
 * is dead-lettered.
 */
public record RetryStaircase(int maxAttempts, List<BatonDuration> delays) {

  /** No retries: the first technical failure dead-letters. Used for commands without a retry policy. */
  public static final RetryStaircase NONE = new RetryStaircase(1, List.of());

  public RetryStaircase {
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
    }
    delays = List.copyOf(delays);
    if (maxAttempts > 1 && delays.isEmpty()) {
      throw new IllegalArgumentException(
          "maxAttempts is " + maxAttempts + " but no delays are given: list at least one delay, e.g. [30s]");
    }
  }

  /** Parses the spec form, e.g. {@code (4, ["30s", "2m", "10m"])}. */
  public static RetryStaircase of(int maxAttempts, List<String> delays) {
    List<BatonDuration> parsed = new ArrayList<>();
    for (String d : delays == null ? List.<String>of() : delays) {
      parsed.add(BatonDuration.parse(d));
    }
    return new RetryStaircase(maxAttempts, parsed);
  }

  public boolean hasRetries() {
    return maxAttempts > 1;
  }

  /** Retries after the first delivery. */
  public int retries() {
    return maxAttempts - 1;
  }

  /**
   * The delay before retry {@code k}: {@code delays[k-1]}, the last one repeating.
   *
   * @param retry 1 for the first retry, up to {@link #retries()}
   */
  public BatonDuration delayBeforeRetry(int retry) {
    if (retry < 1 || retry > retries()) {
      throw new IllegalArgumentException("retry " + retry + " is outside 1.." + retries());
    }
    return delays.get(Math.min(retry, delays.size()) - 1);
  }

  /**
   * Whether a delivery that failed after {@code retriesSoFar} retries may be retried; when false it is dead-lettered.
   */
  public boolean mayRetryAfter(int retriesSoFar) {
    return retriesSoFar + 1 < maxAttempts;
  }

  /** The distinct delays actually used, in order: one retry tier queue each. Empty without retries. */
  public List<BatonDuration> tiers() {
    LinkedHashSet<BatonDuration> tiers = new LinkedHashSet<>();
    for (int k = 1; k <= retries(); k++) {
      tiers.add(delayBeforeRetry(k));
    }
    return List.copyOf(tiers);
  }

  /** The normalised delays as a person would write them back, e.g. {@code [30s, 2m, 10m]}. */
  public List<String> normalisedDelays() {
    return delays.stream().map(BatonDuration::toString).toList();
  }
}
