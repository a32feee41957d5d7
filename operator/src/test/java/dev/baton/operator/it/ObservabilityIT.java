package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import io.fabric8.kubernetes.api.model.Event;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What operations see of the operator: {@code /metrics} and {@code /healthz} on its HTTP port, Kubernetes Events for
 * dead letters (docs/design.md#runtime-semantics "Alerts") and for resources whose Ready turns False — each told once, not per resync.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ObservabilityIT {

  static final String NS = "ops";
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static OperatorFixture f;
  static LogCapture logs;

  @BeforeAll
  static void start() {
    logs = new LogCapture();
    int port = freePort();
    f = OperatorFixture.start("obs", s -> s.toBuilder().http("127.0.0.1", port).build());
    f.create(workerService(NS, "payment", "pay", "refund"));
    f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");
  }

  @AfterAll
  static void stop() {
    f.close();
    logs.close();
  }

  @Test
  @Order(1)
  void healthzSaysOkWhileTheOperatorRuns() throws Exception {
    HttpResponse<String> health = get("/healthz");
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("ok\n");
    assertThat(get("/readyz").statusCode()).isEqualTo(200);
    assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
  }

  @Test
  @Order(2)
  void metricsAreServedInPrometheusText() throws Exception {
    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
    assertThat(metrics.body())
        .contains("operator_sdk_reconciliations_started_total")
        .contains("operator_sdk_reconciliations_success_total")
        .contains("jvm_memory_used_bytes")
        .contains("jvm_threads_live_threads")
        .contains("baton_operator_leader 1.0")
        .contains("baton_dead_letters{queue=\"q.dlx.payment.pay\",service=\"payment\"} 0.0");
  }

  @Test
  @Order(3)
  void aDeadLetterRaisesAnEventAnErrorLineAndTheGauge() throws Exception {
    Amqp.publish(f.vhost, "payment.retry.direct.ex", "q.dlx.payment.pay");
    Event event = await().atMost(WITHIN).until(() -> events("payment", "DeadLetters"), e -> e.size() == 1).get(0);
    assertThat(event.getType()).isEqualTo("Warning");
    assertThat(event.getMessage()).isEqualTo("1 new dead letter(s) in q.dlx.payment.pay");
    assertThat(event.getInvolvedObject().getKind()).isEqualTo("WorkerService");
    assertThat(event.getInvolvedObject().getUid()).isEqualTo(f.get(WorkerService.class, NS, "payment").getMetadata().getUid());
    assertThat(event.getSource().getComponent()).isEqualTo("baton-operator");
    assertThat(logs.messages("1 new dead letter(s) in q.dlx.payment.pay")).isNotEmpty();
    await().atMost(WITHIN).untilAsserted(() -> assertThat(get("/metrics").body())
        .contains("baton_dead_letters{queue=\"q.dlx.payment.pay\",service=\"payment\"} 1.0"));

    // Several resyncs later: still one Event. Two more dead letters: one more Event, for the two.
    await().during(OperatorFixture.RESYNC.multipliedBy(3)).atMost(OperatorFixture.RESYNC.multipliedBy(5))
        .until(() -> events("payment", "DeadLetters").size() == 1);
    Amqp.publish(f.vhost, "payment.retry.direct.ex", "q.dlx.payment.pay");
    Amqp.publish(f.vhost, "payment.retry.direct.ex", "q.dlx.payment.pay");
    List<Event> two = await().atMost(WITHIN).until(() -> events("payment", "DeadLetters"), e -> e.size() == 2);
    assertThat(two).extracting(Event::getMessage).contains("2 new dead letter(s) in q.dlx.payment.pay");
  }

  @Test
  @Order(4)
  void aResourceWhoseReadyTurnsFalseGetsOneWarning() throws Exception {
    f.create(workflow(NS, "checkout", "order", step("charge", "billing", "charge", null)));
    f.awaitReady(Workflow.class, NS, "checkout", false, "MissingService");
    Event event = await().atMost(WITHIN).until(() -> events("checkout", "MissingService"), e -> e.size() == 1).get(0);
    assertThat(event.getType()).isEqualTo("Warning");
    assertThat(event.getInvolvedObject().getKind()).isEqualTo("Workflow");
    assertThat(event.getMessage()).contains("billing");
    await().during(OperatorFixture.RESYNC.multipliedBy(3)).atMost(OperatorFixture.RESYNC.multipliedBy(5))
        .until(() -> events("checkout", "MissingService").size() == 1);
  }

  @Test
  @Order(5)
  void theEndpointClosesWithTheOperator() {
    int port = f.operator.httpPort();
    f.operator.close();
    assertThat(reachable(port)).isFalse();
  }

  private static List<Event> events(String involved, String reason) {
    return f.client.v1().events().inNamespace(NS).list().getItems().stream()
        .filter(e -> involved.equals(e.getInvolvedObject().getName()) && reason.equals(e.getReason()))
        .toList();
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + f.operator.httpPort() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static boolean reachable(int port) {
    try {
      HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz")).build(),
          HttpResponse.BodyHandlers.ofString());
      return true;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
