package dev.baton.devapi;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Ages as kubectl shows them ({@code 45s}, {@code 3m20s}, {@code 5h2m}, {@code 3d4h}, {@code 2y17d}): the same
 * thresholds as the API server's {@code duration.HumanDuration}, so the dev API's AGE column reads like a cluster's.
 */
final class HumanDuration {

  private HumanDuration() {}

  /** The age of an RFC 3339 timestamp at {@code now}, or null when it is not a timestamp. */
  static String since(String timestamp, Instant now) {
    try {
      return format(Duration.between(Instant.parse(timestamp), now));
    } catch (DateTimeParseException | NullPointerException e) {
      return null;
    }
  }

  static String format(Duration d) {
    long seconds = d.getSeconds();
    // up to a second in the future is clock skew, not an error
    if (seconds < -1) {
      return "<invalid>";
    }
    if (seconds < 0) {
      return "0s";
    }
    if (seconds < 120) {
      return seconds + "s";
    }
    long minutes = seconds / 60;
    if (minutes < 10) {
      return join(minutes, "m", seconds % 60, "s");
    }
    if (minutes < 180) {
      return minutes + "m";
    }
    long hours = minutes / 60;
    if (hours < 8) {
      return join(hours, "h", minutes % 60, "m");
    }
    if (hours < 48) {
      return hours + "h";
    }
    long days = hours / 24;
    if (hours < 24 * 8) {
      return join(days, "d", hours % 24, "h");
    }
    if (hours < 24 * 365 * 2) {
      return days + "d";
    }
    long years = days / 365;
    if (hours < 24 * 365 * 8) {
      return join(years, "y", days % 365, "d");
    }
    return years + "y";
  }

  private static String join(long major, String majorUnit, long minor, String minorUnit) {
    return minor == 0 ? major + majorUnit : major + majorUnit + minor + minorUnit;
  }
}
