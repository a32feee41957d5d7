package dev.baton.operator.monitoring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.contract.probes.ProbeServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The operator's probe endpoint: its health, and its meters at /metrics. */
class OperatorProbesTest {

  static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void healthFollowsTheOperatorAndOtherMethodsAreRefused() throws Exception {
    OperatorMetrics metrics = new OperatorMetrics();
    AtomicReference<ProbeServer.Health> health =
        new AtomicReference<>(new ProbeServer.Health(false, "starting: the informers have not synced yet"));
    try (ProbeServer server = ProbeServer.start("baton-operator", "test", "127.0.0.1", 0, health::get,
        metrics::scrape)) {
      HttpResponse<String> starting = send(server, "GET", "/healthz");
      assertThat(starting.statusCode()).isEqualTo(503);
      assertThat(starting.body()).contains("starting");
      assertThat(send(server, "GET", "/readyz").statusCode()).isEqualTo(503);

      health.set(new ProbeServer.Health(true, "ok"));
      assertThat(send(server, "GET", "/healthz").statusCode()).isEqualTo(200);
      assertThat(send(server, "POST", "/healthz").statusCode()).isEqualTo(405);

      metrics.deadLetters("payment", "q.dlx.payment.pay", 3);
      assertThat(send(server, "GET", "/metrics").body())
          .contains("# HELP baton_dead_letters")
          .contains("baton_dead_letters{queue=\"q.dlx.payment.pay\",service=\"payment\"} 3.0");
      metrics.retainDeadLetterQueues("payment", java.util.Set.of());
      assertThat(send(server, "GET", "/metrics").body()).doesNotContain("baton_dead_letters{");
    }
  }

  @Test
  void anOperatorThatHasNotStartedIsNotHealthy() {
    try (KubernetesClient client = new KubernetesClientBuilder().build()) {
      Operator operator = new Operator(o -> o.withKubernetesClient(client).withCloseClientOnStop(false));
      ProbeServer.Health health = new OperatorHealth(operator).get();
      assertThat(health.ok()).isFalse();
      assertThat(health.detail()).startsWith("starting");
    }
  }

  private static HttpResponse<String> send(ProbeServer server, String method, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
  }
}
