package dev.baton.httpapi;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * A search of instances ({@code GET /api/v1/instances}): every filter optional, newest first, a page at a time. The
 * cursor is where the previous page stopped (its last instance's creation time and id), so a page never repeats or
 * skips an instance, whatever starts meanwhile.
 *
 * @param status an instance status ({@code RUNNING}, {@code FAILED}, ...), or null
 * @param businessKeyPrefix the business keys that begin with it, or null
 * @param step the instances whose last error is at this step, or that are at it now; or null
 * @param errorCode the instances whose last error has this code (the worker's, or the runtime's: {@code Timeout},
 *     ...); or null
 * @param createdAfter only those created at or after it; null for no bound
 * @param createdBefore only those created before it; null for no bound
 * @param cursor the {@code nextCursor} of the page before, or null for the first page
 */
public record InstanceQuery(String namespace, String workflow, String status, String businessKeyPrefix, String step,
    String errorCode, Instant createdAfter, Instant createdBefore, int limit, Cursor cursor) {

  public static final int DEFAULT_LIMIT = 50;
  public static final int MAX_LIMIT = 500;
  /** The statuses an instance can have, as the API writes them. */
  public static final Set<String> STATUSES = Set.of("RUNNING", "COMPENSATING", "SUCCEEDED", "FAILED", "COMPENSATED",
      "CANCELLED");
  /** The query parameters a search takes: an unknown one is refused. */
  public static final Set<String> PARAMETERS = Set.of("namespace", "workflow", "status", "businessKeyPrefix",
      "step", "errorCode", "createdAfter", "createdBefore", "limit", "cursor");

  /** Where a page stopped: the last instance it showed, by creation time then id, newest first. */
  public record Cursor(Instant createdAt, UUID id) {

    /** The cursor as the API writes it: opaque to clients (URL-safe Base64). */
    public String encode() {
      String plain = createdAt.getEpochSecond() + "." + createdAt.getNano() + "/" + id;
      return Base64.getUrlEncoder().withoutPadding().encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    static Cursor decode(String text) {
      try {
        String plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
        int slash = plain.indexOf('/');
        int dot = plain.indexOf('.');
        Instant at = Instant.ofEpochSecond(Long.parseLong(plain.substring(0, dot)),
            Long.parseLong(plain.substring(dot + 1, slash)));
        return new Cursor(at, UUID.fromString(plain.substring(slash + 1)));
      } catch (RuntimeException e) {
        throw new InvalidRequest("cursor '" + text + "' is not one this API gave: pass the nextCursor of the page"
            + " before, as it is");
      }
    }
  }

  /**
   * The search a request asks for, from its query parameters.
   *
   * @param names the parameters the request has (to refuse an unknown one, a typo that would widen the search)
   * @throws InvalidRequest naming the parameter that is wrong
   */
  public static InstanceQuery parse(Set<String> names, Function<String, String> param) {
    for (String name : names) {
      if (!PARAMETERS.contains(name)) {
        throw new InvalidRequest("unknown parameter '" + name + "': a search takes " + String.join(", ",
            PARAMETERS.stream().sorted().toList()));
      }
    }
    String status = text(param, "status");
    if (status != null) {
      status = status.toUpperCase(Locale.ROOT);
      if (!STATUSES.contains(status)) {
        throw new InvalidRequest("status '" + param.apply("status") + "' is not one of "
            + STATUSES.stream().sorted().toList());
      }
    }
    Instant after = instant(param, "createdAfter");
    Instant before = instant(param, "createdBefore");
    if (after != null && before != null && !after.isBefore(before)) {
      throw new InvalidRequest("createdAfter " + after + " is not before createdBefore " + before);
    }
    String cursor = text(param, "cursor");
    return new InstanceQuery(text(param, "namespace"), text(param, "workflow"), status,
        text(param, "businessKeyPrefix"), text(param, "step"), text(param, "errorCode"), after, before,
        limit(text(param, "limit")), cursor == null ? null : Cursor.decode(cursor));
  }

  /** The next page of the same search. */
  public InstanceQuery after(Cursor next) {
    return new InstanceQuery(namespace, workflow, status, businessKeyPrefix, step, errorCode, createdAfter,
        createdBefore, limit, next);
  }

  /** The path and query of this search, for a client. */
  public String path() {
    Map<String, String> q = new LinkedHashMap<>();
    q.put("namespace", namespace);
    q.put("workflow", workflow);
    q.put("status", status);
    q.put("businessKeyPrefix", businessKeyPrefix);
    q.put("step", step);
    q.put("errorCode", errorCode);
    q.put("createdAfter", createdAfter == null ? null : createdAfter.toString());
    q.put("createdBefore", createdBefore == null ? null : createdBefore.toString());
    q.put("limit", Integer.toString(limit));
    q.put("cursor", cursor == null ? null : cursor.encode());
    StringBuilder path = new StringBuilder(ApiPaths.SEARCH);
    q.forEach((k, v) -> {
      if (v != null) {
        path.append(path.indexOf("?") < 0 ? '?' : '&').append(k).append('=')
            .append(URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    });
    return path.toString();
  }

  private static String text(Function<String, String> param, String name) {
    String v = param.apply(name);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static Instant instant(Function<String, String> param, String name) {
    String v = text(param, name);
    if (v == null) {
      return null;
    }
    try {
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      throw new InvalidRequest(name + " '" + v + "' is not an RFC 3339 time such as 2026-12-05T02:00:00Z");
    }
  }

  private static int limit(String text) {
    if (text == null) {
      return DEFAULT_LIMIT;
    }
    try {
      int limit = Integer.parseInt(text);
      if (limit >= 1 && limit <= MAX_LIMIT) {
        return limit;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new InvalidRequest("limit '" + text + "' must be a number from 1 to " + MAX_LIMIT);
  }
}
