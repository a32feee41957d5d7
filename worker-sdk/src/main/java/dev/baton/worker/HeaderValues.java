package dev.baton.worker;

import com.rabbitmq.client.LongString;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** AMQP header values as Java code expects them: the client hands strings over as {@link LongString}. */
final class HeaderValues {

  private HeaderValues() {}

  /** A copy with every {@link LongString} (also inside lists and tables, e.g. {@code x-death}) as a String. */
  static Map<String, Object> plain(Map<String, Object> headers) {
    if (headers == null || headers.isEmpty()) {
      return Map.of();
    }
    Map<String, Object> copy = new LinkedHashMap<>();
    headers.forEach((k, v) -> copy.put(k, plain(v)));
    return Collections.unmodifiableMap(copy);
  }

  @SuppressWarnings("unchecked")
  private static Object plain(Object value) {
    if (value instanceof LongString s) {
      return s.toString();
    }
    if (value instanceof byte[] b) {
      return new String(b, StandardCharsets.UTF_8);
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(v -> copy.add(plain(v)));
      return Collections.unmodifiableList(copy);
    }
    if (value instanceof Map<?, ?> map) {
      return plain((Map<String, Object>) map);
    }
    return value;
  }

  /** The value as text, or null when absent. */
  static String text(Object value) {
    Object v = plain(value);
    return v == null ? null : v.toString();
  }

  /**
   * A whole number from a header that other languages may have written as an int, a long or a string.
   *
   * @throws NumberFormatException when it is none of these
   */
  static Long number(Object value) {
    Object v = plain(value);
    if (v == null) {
      return null;
    }
    if (v instanceof Byte || v instanceof Short || v instanceof Integer || v instanceof Long) {
      return ((Number) v).longValue();
    }
    return Long.parseLong(v.toString().trim());
  }
}
