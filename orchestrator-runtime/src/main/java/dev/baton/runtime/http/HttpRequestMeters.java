package dev.baton.runtime.http;

import dev.baton.runtime.metrics.RuntimeMetrics;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.router.Endpoint;
import io.javalin.router.InternalRouter;
import io.javalin.router.ParsedEndpoint;

/**
 * Javalin's request logger, which tells {@link RuntimeMetrics#httpRequest} of every request answered, with the route
 * template it matched, or would have matched when a before-handler refused it (401, 403); a request that matches no
 * route counts under {@code NOT_FOUND}.
 */
final class HttpRequestMeters {

  private static final String UNMATCHED = "NOT_FOUND";

  private final RuntimeMetrics metrics;
  /** The app's routes, known once it is created (before it serves). */
  private volatile InternalRouter routes;

  HttpRequestMeters(RuntimeMetrics metrics) {
    this.metrics = metrics;
  }

  /** The app whose requests are counted, for the routes of the requests refused before their handler. */
  HttpRequestMeters of(Javalin app) {
    routes = app.unsafe.internalRouter;
    return this;
  }

  /** Called once a request is answered, with its time in milliseconds. */
  void record(Context ctx, Float millis) {
    metrics.httpRequest(ctx.method().name(), route(ctx), ctx.status().getCode(), (long) (millis * 1_000_000L));
  }

  private String route(Context ctx) {
    Endpoint matched = null;
    try {
      matched = ctx.endpoints().matchedHttpEndpoint();
    } catch (RuntimeException e) {
      // Javalin throws when the request reached no route's handler: none matched, or a before-handler refused it
    }
    if (matched != null) {
      return matched.path;
    }
    InternalRouter known = routes;
    if (known != null) {
      for (ParsedEndpoint e : known.findHttpHandlerEntries(ctx.method(), ctx.path())) {
        if (HandlerType.commonHttp().contains(e.endpoint.method)) { // not a before-handler's path (/api/*)
          return e.endpoint.path;
        }
      }
    }
    return UNMATCHED;
  }
}
