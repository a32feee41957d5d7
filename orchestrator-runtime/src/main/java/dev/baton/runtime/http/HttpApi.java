package dev.baton.runtime.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.runtime.definitions.RouteTable;
import dev.baton.runtime.definitions.WorkflowWatcher;
import dev.baton.runtime.engine.InstanceService;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.SqlErrors;
import dev.baton.runtime.store.StepStore;
import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.sql.SQLException;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The runtime's HTTP API (docs/design.md#interfaces): JSON everywhere, errors included. */
public final class HttpApi implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final String INSTANCES = "/api/v1/namespaces/{ns}/workflows/{name}/instances";

  private final Javalin app;

  private HttpApi(Javalin app) {
    this.app = app;
  }

  /**
   * What the API serves.
   *
   * @param pages pages served beside the API, behind the same authentication (the web UI), or null
   */
  public record Parts(Database database, InstanceStore instances, StepStore steps,
      InstanceService service, WorkflowWatcher workflows, RuntimeMetrics metrics, HealthCheck health,
      RouteTable routes, Pages pages) {}

  /** Pages served beside the API: they register their routes, and are given the API's authentication. */
  @FunctionalInterface
  public interface Pages {
    void register(RoutesConfig routes, ApiAuth auth);
  }

  public static HttpApi start(String host, int port, long maxRequestBytes, boolean requireReady, Parts p) {
    return start(host, port, maxRequestBytes, requireReady, p, ApiAuth.OPEN);
  }

  /** @param auth who may call what: bearer tokens, or {@link ApiAuth#OPEN} */
  public static HttpApi start(String host, int port, long maxRequestBytes, boolean requireReady, Parts p,
      ApiAuth auth) {
    InstanceRoutes routes = new InstanceRoutes(p.database(), p.instances(), p.steps(), p.service(),
        p.workflows(), requireReady, maxRequestBytes, p.metrics());
    Javalin app = Javalin.create(config -> {
      config.jetty.host = host;
      config.jetty.port = port;
      config.http.maxRequestSize = maxRequestBytes;
      config.http.prefer405over404 = true; // a known path with the wrong method says so
      config.startup.showJavalinBanner = false;
      config.startup.showOldJavalinVersionWarning = false;

      config.routes.before(auth::check);
      if (p.pages() != null) {
        p.pages().register(config.routes, auth);
      }

      config.routes.post(INSTANCES, routes::start);
      config.routes.post(INSTANCES + "/batch", routes::startBatch);
      config.routes.get(INSTANCES, routes::list);
      config.routes.get("/api/v1/instances/{id}", routes::get);
      config.routes.post("/api/v1/instances/{id}/cancel", routes::cancel);
      config.routes.post("/api/v1/instances/{id}/retry", routes::retry);
      config.routes.post("/api/v1/instances/{id}/signals/{signal}", routes::signal);
      config.routes.get("/api/v1/counts", new CountsRoute(p.metrics())::counts);
      config.routes.get("/api/v1/routes", new RoutesRoute(p.routes())::routes);
      config.routes.get("/healthz", ctx -> health(ctx, p.health()));
      // Liveness only: the process answers. A database or broker outage must not get the pod restarted (the
      // runtime waits and reconnects by itself); that is what /healthz, the readiness probe, reports.
      config.routes.get("/livez", ctx -> ctx.json(java.util.Map.of("status", "UP")));
      config.routes.get("/metrics", ctx -> {
        // OpenMetrics when the scraper asks for it (Prometheus does by default): the format that carries exemplars.
        boolean openMetrics = String.valueOf(ctx.header("Accept")).contains("application/openmetrics-text");
        String type = openMetrics ? RuntimeMetrics.OPENMETRICS : "text/plain; version=0.0.4; charset=utf-8";
        ctx.contentType(type).result(p.metrics().scrape(type));
      });

      config.routes.exception(ApiError.class, (e, ctx) -> error(ctx, e.status(), e.code(), e.getMessage()));
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
    }).start();
    LOG.info("HTTP API listening on {}:{} ({})", host, app.port(), auth.describe());
    return new HttpApi(app);
  }

  public int port() {
    return app.port();
  }

  @Override
  public void close() {
    app.stop();
  }

  private static void health(Context ctx, HealthCheck health) {
    boolean db = health.databaseUp();
    boolean broker = health.brokerUp();
    List<String> lanesDown = health.lanesNotRunning();
    boolean up = db && broker && lanesDown.isEmpty();
    ObjectNode body = Json.object();
    body.put("status", up ? "UP" : "DOWN");
    body.put("database", db ? "UP" : "DOWN");
    body.put("broker", broker ? "UP" : "DOWN");
    body.put("lanes", lanesDown.isEmpty() ? "UP" : "DOWN");
    if (!lanesDown.isEmpty()) {
      body.putPOJO("lanesNotRunning", lanesDown);
    }
    body.putPOJO("consuming", new TreeSet<>(health.consuming()));
    InstanceRoutes.respond(ctx, up ? 200 : 503, body);
  }

  private static void error(Context ctx, int status, String code, String message) {
    InstanceRoutes.respond(ctx, status, InstanceJson.error(code, message));
  }
}
