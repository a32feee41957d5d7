package dev.baton.cli.support;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;

/** Times as people read them in a terminal: ages like kubectl's, clock times in the local zone. */
public final class Times {

  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");
  private static final DateTimeFormatter DATE_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss z");

  private Times() {}

  /** {@code 45s}, {@code 3m12s}, {@code 25m}, {@code 4h10m}, {@code 3d}; "" for no time. */
  public static String age(Instant from, Instant now) {
    return from == null ? "" : span(Duration.between(from, now));
  }

  /** A span of time as {@link #age} writes it; sub-second spans in milliseconds ({@code 230ms}). */
  public static String span(Duration d) {
    if (d.isNegative()) {
      d = Duration.ZERO;
    }
    long ms = d.toMillis();
    long s = d.toSeconds();
    if (ms < 1000) {
      return ms + "ms";
    }
    if (s < 10) {
      return String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
    }
    if (s < 60) {
      return s + "s";
    }
    if (s < 600) {
      return (s / 60) + "m" + (s % 60 == 0 ? "" : (s % 60) + "s");
    }
    if (s < 3600) {
      return (s / 60) + "m";
    }
    if (s < 36_000) {
      return (s / 3600) + "h" + ((s % 3600) / 60 == 0 ? "" : ((s % 3600) / 60) + "m");
    }
    if (s < 172_800) {
      return (s / 3600) + "h";
    }
    return (s / 86_400) + "d";
  }

  /** {@code 17:10:01} in the local zone. */
  public static String clock(Instant t) {
    return t == null ? "" : CLOCK.format(t.atZone(ZoneId.systemDefault()));
  }

  /**
   * {@link #clock} when {@code t} falls on the same local day as {@code now}, else {@link #dateTime}: a deadline a day
   * away read as a bare clock time looks like one that has already passed.
   */
  public static String clockOrDate(Instant t, Instant now) {
    if (t == null) {
      return "";
    }
    ZoneId zone = ZoneId.systemDefault();
    return t.atZone(zone).toLocalDate().equals(now.atZone(zone).toLocalDate()) ? clock(t) : dateTime(t);
  }

  /** {@code 2026-11-30 17:10:01 UTC} in the local zone. */
  public static String dateTime(Instant t) {
    return t == null ? "" : DATE_TIME.format(t.atZone(ZoneId.systemDefault()));
  }
}
