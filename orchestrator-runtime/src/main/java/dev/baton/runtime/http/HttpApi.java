package dev.baton.runtime.http;

import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.ErrorBody;
import dev.baton.httpapi.Health;
import dev.baton.httpapi.InvalidRequest;
import dev.baton.httpapi.Liveness;
import dev.baton.runtime.definitions.RouteTable;
import dev.baton.runtime.definitions.WorkflowWatcher;
import dev.baton.runtime.engine.BulkOperations;
import dev.baton.runtime.engine.InstanceEndings;
import dev.baton.runtime.engine.InstanceService;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.schedules.Scheduler;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.RequestKeyStore;
import dev.baton.runtime.store.SqlErrors;
import dev.baton.runtime.store.StepStore;
import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpResponseException;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The runtime's HTTP API (docs/design.md#interfaces): JSON everywhere, errors included. */
public final class HttpApi implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);

  private final Javalin app;
  private final InstanceWaits waits;

  private HttpApi(Javalin app, InstanceWaits waits) {
    this.app = app;
    this.waits = waits;
  }

  /**
   * What the API serves.
   *
   * @param pages pages served beside the API, behind the same authentication (the web UI), or null
   * @param endings the instances this runtime ends, told to the requests waiting for their end
   */
  public record Parts(Database database, InstanceStore instances, StepStore steps,
      InstanceService service, WorkflowWatcher workflows, RuntimeMetrics metrics, HealthCheck health,
      RouteTable routes, Pages pages, InstanceEndings endings, BulkOperations operations, Scheduler schedules) {}

  /** Pages served beside the API: they register their routes, and are given the API's security. */
  @FunctionalInterface
  public interface Pages {
    void register(RoutesConfig routes, ApiSecurity security);
  }

  public static HttpApi start(String host, int port, long maxRequestBytes, boolean requireReady, Parts p) {
    return start(host, port, maxRequestBytes, requireReady, p, ApiAuth.OPEN);
  }

  /** @param auth who may call what: bearer tokens, or {@link ApiAuth#OPEN} */
  public static HttpApi start(String host, int port, long maxRequestBytes, boolean requireReady, Parts p,
      ApiAuth auth) {
    return start(host, port, maxRequestBytes, requireReady, p, ApiSecurity.tokens(auth, false));
  }

  /** @param security who may call what: the runtime's tokens, or Kubernetes tokens and RBAC */
  public static HttpApi start(String host, int port, long maxRequestBytes, boolean requireReady, Parts p,
      ApiSecurity security) {
    IdempotentRequests idempotent = new IdempotentRequests(p.database(), new RequestKeyStore());
    InstanceWaits waits = new InstanceWaits(p.database(), p.instances(), p.endings());
    InstanceRoutes routes = new InstanceRoutes(p.database(), p.instances(), p.steps(), p.service(),
        p.workflows(), requireReady, maxRequestBytes, p.metrics(), security, waits);
    OperationRoutes operationRoutes = new OperationRoutes(p.operations(), security, maxRequestBytes);
    HttpRequestMeters requests = new HttpRequestMeters(p.metrics());
    Javalin app = Javalin.create(config -> {
      config.jetty.host = host;
      config.jetty.port = port;
      config.http.maxRequestSize = maxRequestBytes;
      config.http.prefer405over404 = true; // a known path with the wrong method says so
      config.startup.showJavalinBanner = false;
      config.startup.showOldJavalinVersionWarning = false;
      config.requestLogger.http(requests::record);

      security.register(config.routes);
      if (p.pages() != null) {
        p.pages().register(config.routes, security);
      }

      config.routes.post(ApiPaths.INSTANCES, idempotent.wrap(routes::start));
      config.routes.post(ApiPaths.BATCH, idempotent.wrap(routes::startBatch));
      config.routes.get(ApiPaths.INSTANCES, routes::list);
      config.routes.get(ApiPaths.SEARCH, routes::search);
      config.routes.post(ApiPaths.OPERATIONS, idempotent.wrap(operationRoutes::create));
      config.routes.get(ApiPaths.OPERATION, operationRoutes::get);
      config.routes.get(ApiPaths.INSTANCE, routes::get);
      config.routes.post(ApiPaths.CANCEL, idempotent.wrap(routes::cancel));
      config.routes.post(ApiPaths.RETRY, idempotent.wrap(routes::retry));
      config.routes.post(ApiPaths.SIGNAL, idempotent.wrap(routes::signal));
      config.routes.get(ApiPaths.COUNTS, new CountsRoute(p.metrics(), p.schedules()::standings)::counts);
      config.routes.get(ApiPaths.ROUTES, new RoutesRoute(p.routes())::routes);
      config.routes.get(ApiPaths.WHOAMI, ctx -> InstanceRoutes.respond(ctx, 200, security.whoAmI(ctx)));
      config.routes.get(ApiPaths.HEALTH, ctx -> health(ctx, p.health()));
      // Liveness only: the process answers. A database or broker outage must not get the pod restarted (the
      // runtime waits and reconnects by itself); that is what /healthz, the readiness probe, reports.
      config.routes.get(ApiPaths.LIVE, ctx -> InstanceRoutes.respond(ctx, 200, new Liveness(Health.UP)));
      config.routes.get(ApiPaths.OPENAPI, OpenApiRoute::document);
      config.routes.get(ApiPaths.METRICS, ctx -> {
        // OpenMetrics when the scraper asks for it (Prometheus does by default): the format that carries exemplars.
        boolean openMetrics = String.valueOf(ctx.header("Accept")).contains("application/openmetrics-text");
        String type = openMetrics ? RuntimeMetrics.OPENMETRICS : "text/plain; version=0.0.4; charset=utf-8";
        ctx.contentType(type).result(p.metrics().scrape(type));
      });

      config.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status(), e.code(), e.getMessage()));
      config.routes.exception(InvalidRequest.class, (e, ctx) -> error(ctx, 400, ApiError.BAD_REQUEST, e.getMessage()));
      // Javalin's own refusals (no route, wrong method, body over the limit) in the same JSON shape.
      config.routes.exception(HttpResponseException.class, (e, ctx) -> {
        switch (e.getStatus()) {
          case 404 -> error(ctx, 404, "NotFound", "no such endpoint: " + ctx.method() + " " + ctx.path());
          case 405 -> error(ctx, 405, "MethodNotAllowed", ctx.method() + " is not allowed on " + ctx.path());
          case 413 -> error(ctx, 413, "PayloadTooLarge", "the body is larger than the limit of " + maxRequestBytes
              + " bytes");
          default -> error(ctx, e.getStatus(), e.getStatus() < 500 ? "BadRequest" : "InternalError", e.getMessage());
        }
      });
      config.routes.exception(SQLException.class, (e, ctx) -> {
        if (SqlErrors.isTransient(e)) {
          error(ctx, 503, "ServiceUnavailable", "the database is unavailable, try again shortly");
        } else {
          LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
          error(ctx, 500, "InternalError", "the request failed; see the runtime's log");
        }
      });
      config.routes.exception(Exception.class, (e, ctx) -> {
        LOG.error("{} {} failed", ctx.method(), ctx.path(), e);
        error(ctx, 500, "InternalError", "the request failed; see the runtime's log");
      });
    });
    requests.of(app);
    app.start();
    LOG.info("HTTP API listening on {}:{} ({})", host, app.port(), security.describe());
    return new HttpApi(app, waits);
  }

  public int port() {
    return app.port();
  }

  /**
   * Every route registered, as {@code "GET /api/v1/instances/{id}"}: the API's and the web UI's pages (for the test
   * that holds the API's to its OpenAPI table, {@code ApiOperations}).
   */
  public Set<String> routes() {
    Set<String> routes = new TreeSet<>();
    app.unsafe.internalRouter.allHttpHandlers().stream()
        .filter(h -> HandlerType.commonHttp().contains(h.endpoint.method)) // not the before-handlers (security)
        .forEach(h -> routes.add(h.endpoint.method.name() + " " + h.endpoint.path));
    return routes;
  }

  /** Answers the requests waiting for an instance's end with its state now, then stops serving. */
  @Override
  public void close() {
    try {
      waits.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    app.stop();
  }

  private static void health(Context ctx, HealthCheck health) {
    boolean db = health.databaseUp();
    boolean broker = health.brokerUp();
    List<String> lanesDown = health.lanesNotRunning();
    boolean up = db && broker && lanesDown.isEmpty();
    // A broker alarm keeps the runtime in service: its API still starts (into the outbox), cancels and times out.
    String brokerState = broker && health.brokerBlocked() ? Health.BLOCKED : upOrDown(broker);
    InstanceRoutes.respond(ctx, up ? 200 : 503, new Health(upOrDown(up), upOrDown(db), brokerState,
        upOrDown(lanesDown.isEmpty()), lanesDown, List.copyOf(new TreeSet<>(health.consuming()))));
  }

  private static String upOrDown(boolean up) {
    return up ? Health.UP : Health.DOWN;
  }

  private static void error(Context ctx, int status, String code, String message) {
    InstanceRoutes.respond(ctx, status, new ErrorBody(code, message));
  }
}
