package dev.baton.runtime.http;

import dev.baton.runtime.metrics.RuntimeMetrics;
import io.javalin.http.Context;
import io.javalin.router.Endpoint;

/**
 * Javalin's request logger, which tells {@link RuntimeMetrics#httpRequest} of every request answered, with the route
 * template it matched; a request that matched no route counts under {@code NOT_FOUND}.
 */
final class HttpRequestMeters {

  private static final String UNMATCHED = "NOT_FOUND";

  private final RuntimeMetrics metrics;

  HttpRequestMeters(RuntimeMetrics metrics) {
    this.metrics = metrics;
  }

  /** Called once a request is answered, with its time in milliseconds. */
  void record(Context ctx, Float millis) {
    metrics.httpRequest(ctx.method().name(), route(ctx), ctx.status().getCode(), (long) (millis * 1_000_000L));
  }

  private static String route(Context ctx) {
    Endpoint matched;
    try {
      matched = ctx.endpoints().matchedHttpEndpoint();
    } catch (RuntimeException e) { // Javalin throws when no HTTP route matched (a 404 before any handler)
      return UNMATCHED;
    }
    return matched == null ? UNMATCHED : matched.path;
  }
}
