package dev.baton.runtime.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.metrics.RuntimeMetrics;
import io.javalin.Javalin;
import io.javalin.http.UnauthorizedResponse;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Requests are counted by the route they matched, whatever their path, and whoever answered them. */
class HttpRequestMetersTest {

  private final RuntimeMetrics metrics = new RuntimeMetrics();
  private Javalin app;

  @BeforeEach
  void start() {
    HttpRequestMeters meters = new HttpRequestMeters(metrics);
    app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.jetty.host = "127.0.0.1";
      config.jetty.port = 0;
      config.requestLogger.http(meters::record);
      config.routes.before("/things/*", ctx -> {
        if (ctx.header("Authorization") == null) {
          throw new UnauthorizedResponse();
        }
      });
      config.routes.get("/things/{id}", ctx -> ctx.result(ctx.pathParam("id")));
    });
    meters.of(app);
    app.start();
  }

  @AfterEach
  void stop() {
    app.stop();
  }

  @Test
  void byRouteTemplateNeverByPath() throws Exception {
    get("/things/1", true);
    get("/things/2", true);
    get("/things/3", false);
    get("/elsewhere/4", true);

    String scrape = metrics.scrape();
    assertThat(scrape)
        .contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"SUCCESS\",status=\"200\","
            + "uri=\"/things/{id}\"} 2")
        .contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"CLIENT_ERROR\",status=\"401\","
            + "uri=\"/things/{id}\"} 1")
        .contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"CLIENT_ERROR\",status=\"404\","
            + "uri=\"NOT_FOUND\"} 1")
        .contains("http_server_requests_seconds_bucket{method=\"GET\",outcome=\"SUCCESS\",status=\"200\","
            + "uri=\"/things/{id}\",le=\"0.01\"}")
        .doesNotContain("/things/1", "/things/3", "/elsewhere");
  }

  private void get(String path, boolean authorized) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + path));
    if (authorized) {
      request.header("Authorization", "Bearer t");
    }
    HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
