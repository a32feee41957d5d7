package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.WorkerServiceStatus;
import dev.baton.examples.ExampleWorkers;
import dev.baton.sandbox.MockKubernetes;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.opentelemetry.api.OpenTelemetry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton dev --workers python}: a Ready WorkerService labelled for an example worker gets that worker as a
 * child process with its pod's environment (a stand-in program here, where the Python example would be), until the
 * WorkerService goes; a worker with no program in the language is said once.
 */
class ChildExampleWorkersTest {

  private static final String NS = "default";

  @TempDir
  Path root;

  private MockKubernetes kubernetes;
  private KubernetesClient client;
  private final ByteArrayOutputStream console = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);

  @BeforeEach
  void cluster() {
    kubernetes = MockKubernetes.start(MockKubernetes.ALL_CRDS);
    client = kubernetes.client();
  }

  @AfterEach
  void close() {
    kubernetes.close();
  }

  @Test
  void theLabelledWorkerServicesWorkerRunsAsAChildProcessWithItsPodsEnvironmentUntilTheWorkerServiceGoes()
      throws Exception {
    Path program = root.resolve("examples-workers/python/payment.py");
    Files.createDirectories(program.getParent());
    Files.writeString(program, """
        import os, signal, sys, time
        def stop(*_):
            print("stopping")
            sys.exit(0)
        signal.signal(signal.SIGTERM, stop)
        print("serving", os.environ["BATON_SERVICE"], "from", os.environ["BATON_CONSUMER_PAY_QUEUE"], "as",
              os.environ["BATON_RABBITMQ_USERNAME"])
        while True:
            time.sleep(0.05)
        """);
    readyWorkerService("payment", "pay");

    try (ExampleWorkerRunner runner = ExampleWorkerRunner.start(client, Duration.ofMillis(200), out,
        OpenTelemetry.noop(), WorkerLanguage.PYTHON, root)) {
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(console())
          .contains("example worker payment (python) started for WorkerService default/payment, consuming"
              + " q.payment.pay")
          .contains("[python:payment] serving payment from q.payment.pay as baton-payment"));
      assertThat(runner.runningServices()).containsExactly("payment");

      client.resources(WorkerService.class).inNamespace(NS).withName("payment").delete();
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(console())
          .contains("[python:payment] stopping")
          .contains("example worker payment stopped: its WorkerService is gone"));
      assertThat(runner.runningServices()).isEmpty();
    }
  }

  @Test
  void aWorkerWithNoProgramInTheLanguageIsSaidOnceAndNotServed() {
    readyWorkerService("risk", "score");
    try (ExampleWorkerRunner runner = ExampleWorkerRunner.start(client, Duration.ofMillis(100), out,
        OpenTelemetry.noop(), WorkerLanguage.TYPESCRIPT, root)) {
      String missing = "example worker risk for WorkerService default/risk not started: there is no "
          + root.resolve("examples-workers/typescript/dist/risk.js") + " (--workers typescript)";
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(console()).contains(missing));
      runner.sync(); // looks again: the same problem is not said twice
      runner.sync();
      assertThat(console().split(java.util.regex.Pattern.quote(missing), -1)).hasSize(2);
      assertThat(runner.runningServices()).isEmpty();
    }
  }

  private String console() {
    return console.toString(StandardCharsets.UTF_8);
  }

  /** A WorkerService as the operator leaves it: Ready, its Secret written. */
  private void readyWorkerService(String name, String command) {
    String secret = name + "-broker-credentials";
    client.secrets().inNamespace(NS).resource(new SecretBuilder()
        .withMetadata(new ObjectMetaBuilder().withName(secret).withNamespace(NS).build())
        .withStringData(Map.of("uri", "amqp://baton-" + name + ":pw@127.0.0.1:5672/%2F",
            "username", "baton-" + name, "password", "pw"))
        .build()).create();
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(NS)
        .withLabels(Map.of(ExampleWorkers.LABEL, name)).build());
    WorkerServiceSpec spec = new WorkerServiceSpec();
    spec.setCommands(new ArrayList<>(List.of(new CommandSpec(command, null))));
    ws.setSpec(spec);
    WorkerService created = client.resources(WorkerService.class).inNamespace(NS).resource(ws).create();
    WorkerServiceStatus status = new WorkerServiceStatus();
    status.setCredentialsSecret(secret);
    status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("True").withReason("Ready")
        .build()));
    created.setStatus(status);
    client.resources(WorkerService.class).inNamespace(NS).resource(created).updateStatus();
  }
}
