package dev.baton.runtime.http;

import io.javalin.http.Context;
import io.javalin.router.Endpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import java.util.concurrent.TimeUnit;

/**
 * Times every request of the HTTP server as Micrometer's {@code http.server.requests} (Prometheus:
 * {@code http_server_requests_seconds_count} and {@code _sum}) by method, route, status and outcome. The route is
 * the template the request matched ({@code /api/v1/namespaces/{ns}/workflows/{name}/instances}), never its path: one
 * series per route, not per instance id. A request that matched no route counts under {@code NOT_FOUND}.
 */
final class HttpRequestMeters {

  static final String NAME = "http.server.requests";
  private static final String UNMATCHED = "NOT_FOUND";

  private final MeterRegistry registry;

  HttpRequestMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Javalin's request logger: called once a request is answered, with its time in milliseconds. */
  void record(Context ctx, Float millis) {
    int status = ctx.status().getCode();
    Timer.builder(NAME)
        .description("Requests answered by the HTTP server, by method, route template and status")
        .tags("method", ctx.method().name(), "uri", route(ctx), "status", Integer.toString(status))
        .tag("outcome", Outcome.forStatus(status).name())
        .register(registry)
        .record((long) (millis * 1_000_000L), TimeUnit.NANOSECONDS);
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
