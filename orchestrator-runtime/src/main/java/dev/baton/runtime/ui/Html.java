package dev.baton.runtime.ui;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** Escaping and the few formats every page uses. Everything a page writes from data goes through {@link #esc}. */
final class Html {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")
      .withZone(ZoneOffset.UTC);

  private Html() {}

  /** Text for HTML content and attribute values (double-quoted). */
  static String esc(Object value) {
    if (value == null) {
      return "";
    }
    String s = value.toString();
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> b.append("&amp;");
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** A query-string or path part. */
  static String url(String value) {
    return URLEncoder.encode(value == null ? "" : value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  /** UTC, to the second; the full instant goes into the {@code title} and {@code datetime} of a {@code <time>}. */
  static String time(Instant t) {
    if (t == null) {
      return "<span class=\"muted\">–</span>";
    }
    return "<time datetime=\"" + t + "\" title=\"" + t + "\">" + TIME.format(t) + "Z</time>";
  }

  /** {@code 850 ms}, {@code 12.3 s}, {@code 4 min 5 s}, {@code 2 h 3 min}, {@code 3 d 4 h}. */
  static String duration(Duration d) {
    long ms = Math.max(0, d.toMillis());
    if (ms < 1_000) {
      return ms + " ms";
    }
    if (ms < 60_000) {
      return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
    }
    long s = ms / 1000;
    if (s < 3600) {
      return s / 60 + " min " + s % 60 + " s";
    }
    if (s < 86_400) {
      return s / 3600 + " h " + s % 3600 / 60 + " min";
    }
    return s / 86_400 + " d " + s % 86_400 / 3600 + " h";
  }

  /** A CSS class for a status: {@code status-running}, ... */
  static String statusClass(String status) {
    return "status-" + (status == null ? "unknown" : status.toLowerCase(java.util.Locale.ROOT).replace('_', '-'));
  }

  /** A status as a badge: the word itself (never colour alone). */
  static String badge(String status) {
    return "<span class=\"badge " + statusClass(status) + "\">" + esc(status) + "</span>";
  }
}
