package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker's health endpoint on a real broker: {@code /healthz} 200 while connected and consuming, 503 while a
 * queue is not consumed; {@code /metrics} with the worker's meters in Prometheus text.
 */
class HealthEndpointIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-health");

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void healthFollowsTheConsumersAndMetricsCountWhatWasHandled() throws Exception {
    ServiceModel model = TestBroker.commandService("ledger", "post", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

    try (BatonWorker worker = broker.worker(model)
        .command("post", cmd -> CommandResult.success())
        .healthPort(0)
        .meterRegistry(registry)
        .build()) {
      assertThat(worker.health().ok()).isFalse();
      worker.start();
      HttpResponse<String> healthy = get(worker, "/healthz");
      assertThat(healthy.statusCode()).isEqualTo(200);
      assertThat(healthy.body()).isEqualTo("consuming q.ledger.post\n");

      broker.sendCommand("ledger", "post", "m-1", commandBody("i-1", "{}"));
      broker.take(events);
      await().atMost(TestBroker.WAIT).untilAsserted(() -> assertThat(get(worker, "/metrics").body())
          .contains("baton_worker_handler_seconds_count{consumer=\"post\",result=\"success\",service=\"ledger\"} 1")
          .contains("baton_worker_in_flight{service=\"ledger\"} 0.0"));
      assertThat(get(worker, "/metrics").headers().firstValue("Content-Type")).hasValueSatisfying(
          type -> assertThat(type).startsWith("text/plain; version=0.0.4"));

      // The queue goes away (the operator re-creates it): not consuming, so not healthy, until it is back.
      try (var admin = broker.vhost.newConnection("deleter"); var ch = admin.createChannel()) {
        ch.queueDelete("q.ledger.post");
      }
      await().atMost(TestBroker.WAIT).pollInterval(Duration.ofMillis(50))
          .until(() -> get(worker, "/healthz").statusCode() == 503);
      assertThat(get(worker, "/healthz").body()).isEqualTo("not consuming q.ledger.post\n");
      broker.declare(model);
      await().atMost(TestBroker.WAIT).pollInterval(Duration.ofMillis(100))
          .until(() -> get(worker, "/healthz").statusCode() == 200);
    }
  }

  @Test
  void withoutMetricsTheEndpointServesHealthOnly() throws Exception {
    ServiceModel model = TestBroker.commandService("archive", "store", RetryStaircase.NONE);
    broker.declare(model);
    try (BatonWorker worker = broker.worker(model).command("store", cmd -> CommandResult.success()).healthPort(0)
        .build()) {
      worker.start();
      assertThat(get(worker, "/healthz").statusCode()).isEqualTo(200);
      assertThat(get(worker, "/metrics").statusCode()).isEqualTo(404);
      int port = worker.healthPort();
      worker.close();
      assertThat(worker.health().ok()).isFalse();
      assertThat(worker.healthPort()).isZero();
      assertThat(port).isPositive();
    }
  }

  private static HttpResponse<String> get(BatonWorker worker, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + worker.healthPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
