package dev.baton.contract;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A duration as written in resources ({@code 30s}, {@code 2m}, {@code 1500ms}, {@code 1h}, {@code 1m30s}).
 *
 * <p>{@link #toString()} is the normalised form used in queue names: the largest of h, m, s, ms that divides the
 * value exactly, so {@code 120s}, {@code 2m} and {@code 1m60s} all name the same queue {@code ...2m}.
 */
public final class BatonDuration implements Comparable<BatonDuration> {

  /** The schema pattern of a duration: one or more number-unit pairs. */
  public static final String PATTERN = "^([0-9]{1,9}(ms|s|m|h))+$";

  private static final Pattern WHOLE = Pattern.compile(PATTERN);
  private static final Pattern PART = Pattern.compile("([0-9]+)(ms|s|m|h)");

  private final long millis;

  private BatonDuration(long millis) {
    this.millis = millis;
  }

  public static BatonDuration ofMillis(long millis) {
    if (millis <= 0) {
      throw new IllegalArgumentException("a duration must be greater than zero, got " + millis + "ms");
    }
    return new BatonDuration(millis);
  }

  /**
   * Parses a duration; a message a person can act on when the text is not one.
   *
   * @throws IllegalArgumentException for anything but number-unit pairs (ms, s, m, h) adding up to more than zero
   */
  public static BatonDuration parse(String text) {
    if (text == null || !WHOLE.matcher(text).matches()) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration: write a whole number and a unit (ms, s, m or h), e.g. 500ms, 30s, 2m, 1h or 1m30s");
    }
    long total = 0;
    Matcher m = PART.matcher(text);
    while (m.find()) {
      long n = Long.parseLong(m.group(1));
      long unit = switch (m.group(2)) {
        case "ms" -> 1L;
        case "s" -> 1_000L;
        case "m" -> 60_000L;
        case "h" -> 3_600_000L;
        default -> throw new IllegalStateException(m.group(2));
      };
      total = Math.addExact(total, Math.multiplyExact(n, unit));
    }
    if (total == 0) {
      throw new IllegalArgumentException("'" + text + "' is zero: a duration must be greater than zero");
    }
    return new BatonDuration(total);
  }

  public static boolean isValid(String text) {
    try {
      parse(text);
      return true;
    } catch (IllegalArgumentException | ArithmeticException e) {
      return false;
    }
  }

  public long toMillis() {
    return millis;
  }

  public Duration toDuration() {
    return Duration.ofMillis(millis);
  }

  @Override
  public String toString() {
    if (millis % 3_600_000L == 0) {
      return millis / 3_600_000L + "h";
    }
    if (millis % 60_000L == 0) {
      return millis / 60_000L + "m";
    }
    if (millis % 1_000L == 0) {
      return millis / 1_000L + "s";
    }
    return millis + "ms";
  }

  @Override
  public int compareTo(BatonDuration o) {
    return Long.compare(millis, o.millis);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BatonDuration d && d.millis == millis;
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(millis);
  }
}
