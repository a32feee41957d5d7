package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.http.client.domain.QueueInfo;
import dev.baton.devapi.Kubectl;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.Sandbox;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton dev} in-process, against the real RabbitMQ (a fresh vhost) and PostgreSQL (a fresh database) of a
 * {@link Sandbox}: the README's quickstart with the real kubectl. Every part must run: a component that does not
 * start fails the class (DevStack.start throws), it is never skipped.
 */
class DevStackIT {

  @TempDir
  static Path tmp;

  private static Sandbox infrastructure;
  private static DevStack stack;
  private static Kubectl kubectl;
  private static final ByteArrayOutputStream printed = new ByteArrayOutputStream();

  @BeforeAll
  static void start() {
    Kubectl.executable();
    infrastructure = Sandbox.builder("baton-dev-test").database().brokerUsers("baton-devtest-").start();
    DevRun dev = DevRun.start(infrastructure, tmp, Duration.ofSeconds(5), false,
        new PrintStream(printed, true, StandardCharsets.UTF_8));
    stack = dev.stack();
    kubectl = dev.kubectl();
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      // let the operator remove what it made (broker users live outside the vhost)
      kubectl.run("delete", "--ignore-not-found", "--timeout=60s", "-f", DevRun.orderSaga());
    }
    if (infrastructure != null) {
      infrastructure.close(); // baton dev first, then any broker users left, the database and the vhost
    }
  }

  @Test
  void startsTheDevApiWritesTheKubeconfigAndSaysWhatRuns() {
    assertThat(stack.kubeconfig()).exists().hasFileName("kubeconfig");
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("dev API", "operator", "runtime")
        .contains("operator     running (", "runtime      running (")
        .doesNotContain(LocalServices.RABBITMQ_PASSWORD + "@");
    assertThat(kubectl.ok("get", "namespace", "default")).contains("Active");
    assertThat(kubectl.ok("get", "crds")).contains("workflows.baton.dev", "workerservices.baton.dev",
        "retrypolicies.baton.dev");
  }

  @Test
  void theOrderSagaBecomesReadyAndTheBrokerHasItsQueues() {
    kubectl.ok("apply", "-f", DevRun.orderSaga());

    await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
      String table = kubectl.ok("get", "workerservices", "--no-headers",
          "-o", "custom-columns=NAME:.metadata.name,READY:.status.conditions[?(@.type==\"Ready\")].status");
      assertThat(table.lines().map(String::trim).toList()).containsExactlyInAnyOrder(
          "inventory   True", "payment     True", "shipping    True", "sms         True");
    });
    // payment: pay and refund, authorize and void (the order-approval example's)
    assertThat(kubectl.ok("get", "workerservices")).contains("READY").containsPattern("payment\\s+payment\\s+4\\s+True");

    List<String> queues = infrastructure.vhost().management().getQueues(infrastructure.vhost().name()).stream().map(QueueInfo::getName).toList();
    assertThat(queues).contains("q.payment.pay", "q.payment.refund", "q.retry.payment.pay.1s", "q.dlx.payment.pay",
        "q.inventory.reserve", "q.shipping.ship", "q.sms.order_pay_failed_notify", "q.orchestrator.order-fulfilment");
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
        assertThat(kubectl.ok("get", "workflow", "order-fulfilment", "--no-headers")).contains("True"));
  }

  @Test
  void aJsonPatchWithAnUnknownFieldIsPrunedAndBatonDevGoesOn() throws Exception {
    kubectl.ok("apply", "-f", DevRun.orderSaga());
    Kubectl.Result patched = kubectl.run("patch", "workerservice", "shipping", "--type=json", "-p", """
        [{"op": "add", "path": "/spec/unknownField", "value": 1},
         {"op": "add", "path": "/spec/commands/-", "value": {"name": "track", "priority": "high"}}]""");
    assertThat(patched.exitCode()).as(patched.all()).isZero();
    assertThat(patched.err()).contains("Warning: unknown field \"spec.unknownField\"",
        "Warning: unknown field \"spec.commands[1].priority\"");
    assertThat(kubectl.ok("get", "workerservice", "shipping", "-o", "json")).doesNotContain("unknownField", "priority");

    // the operator reconciles the change that came with it, and the runtime still answers
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(infrastructure.vhost().management().getQueues(infrastructure.vhost().name()))
            .extracting(QueueInfo::getName).contains("q.shipping.track"));
    await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(kubectl.ok("get", "workerservice", "shipping",
        "-o", "jsonpath={.status.conditions[?(@.type==\"Ready\")].status}")).isEqualTo("True"));
    assertThat(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(stack.runtimeUrl() + "/healthz")).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
  }

  @Test
  void theRuntimeAnswersOnItsHttpPort() throws Exception {
    HttpResponse<String> health = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(stack.runtimeUrl() + "/healthz")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
  }
}
