package dev.baton.cli;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.devapi.Kubectl;
import dev.baton.examples.ExampleWorker;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.tracing.RuntimeTracing;
import dev.baton.sandbox.RabbitVhost;
import dev.baton.sandbox.Sandbox;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * {@code baton dev} in-process with the example workers, against a fresh vhost and database, with the order saga of
 * {@code examples/order-saga/} applied by the real kubectl and every example worker running: what a new user has
 * after the README quickstart. The Java one is started once per test run and shared by the classes that ask for it
 * ({@code @ExtendWith(SagaStack.Resolver.class)}, a {@code SagaStack} parameter); closed when the run ends. One with
 * the workers in another language ({@code --workers python}) is {@link #start(WorkerLanguage)}'s, closed by its test.
 */
final class SagaStack implements AutoCloseable {

  static final String WORKFLOW = "order-fulfilment";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Resolves {@code SagaStack} parameters with the one shared stack. */
  static final class Resolver implements ParameterResolver {
    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext c) {
      return p.getParameter().getType() == SagaStack.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext c) {
      return c.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
          .getOrComputeIfAbsent(SagaStack.class, k -> start(), SagaStack.class);
    }
  }

  /** Every span of the runtime and the example workers (OrderSagaTraceIT picks an instance's by its trace id). */
  final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final Sandbox infrastructure;
  private final ByteArrayOutputStream printed;
  final WorkerLanguage workers;
  final RabbitVhost vhost;
  final DevStack stack;
  final Kubectl kubectl;
  private final HttpClient http = HttpClient.newHttpClient();

  /** Starts {@code baton dev} on the stack's vhost and database, applies the saga and waits until it runs. */
  private SagaStack(Sandbox infrastructure, ByteArrayOutputStream printed, WorkerLanguage workers) throws Exception {
    this.infrastructure = infrastructure;
    this.printed = printed;
    this.workers = workers;
    this.vhost = infrastructure.vhost();
    DevRun dev = DevRun.start(infrastructure, Files.createTempDirectory("baton-saga"), Duration.ofSeconds(10), true,
        new PrintStream(printed, true, StandardCharsets.UTF_8), RuntimeTracing.of(OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build()), AuthMode.TOKEN, workers);
    DevStack s = dev.stack();
    this.stack = s;
    this.kubectl = dev.kubectl();
    kubectl.ok("apply", "-f", DevRun.orderSaga());
    await("the four example workers").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
        .until(() -> s.exampleWorkers().runningServices().equals(Set.copyOf(ExampleWorkerPrerequisites.SAGA_WORKERS)));
    if (workers != WorkerLanguage.JAVA) {
      // a child process counts as running once started: its own line says when it consumes
      for (String worker : ExampleWorkerPrerequisites.SAGA_WORKERS) {
        await("the " + workers + " " + worker + " worker consuming").atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(200)).until(() -> console().lines()
                .anyMatch(l -> l.startsWith("[" + workers + ":" + worker + "] ")
                    && l.contains(worker + " worker consuming")));
      }
    }
    awaitRunnable(WORKFLOW);
  }

  /** Applies one more Workflow (YAML, namespace default) with the real kubectl and waits until the runtime runs it. */
  void applyWorkflow(String name, String yaml) {
    Kubectl.Result applied = kubectl.runWithInput(yaml, "apply", "-f", "-");
    if (applied.exitCode() != 0) {
      throw new AssertionError("kubectl apply of Workflow " + name + " failed: " + applied.all());
    }
    awaitRunnable(name);
  }

  /** Waits until a Workflow is Ready and the runtime consumes its orchestrator queue. */
  private void awaitRunnable(String name) {
    await("Workflow " + name + " Ready").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
        .until(() -> {
          Workflow w = stack.api().client().resources(Workflow.class).inNamespace("default").withName(name).get();
          return w != null && w.getStatus() != null && w.getStatus().isReady();
        });
    await("the runtime consuming q.orchestrator." + name).atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(500))
        .until(() -> get("/healthz").path("consuming").toString().contains("\"" + name + "\""));
  }

  static SagaStack start() {
    return start(WorkerLanguage.JAVA);
  }

  /**
   * A stack of its own with the example workers in {@code workers}; fails at once, saying what to install or build,
   * when that language's runtime or programs are missing.
   */
  static SagaStack start(WorkerLanguage workers) {
    Kubectl.executable();
    ExampleWorkerPrerequisites.require(workers, DevRun.repository());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try {
      return Sandbox.builder("baton-saga").database().brokerUsers("baton-sagatest-")
          .start(s -> new SagaStack(s, printed, workers));
    } catch (RuntimeException | Error e) {
      throw new IllegalStateException("the saga stack did not come up: " + e.getMessage() + "\nbaton dev printed:\n"
          + printed.toString(StandardCharsets.UTF_8), e);
    }
  }

  /** What {@code baton dev} has printed so far, the child workers' lines among it. */
  String console() {
    return printed.toString(StandardCharsets.UTF_8);
  }

  String runtimeUrl() {
    return stack.runtimeUrl();
  }

  <T extends ExampleWorker> T example(String name, Class<T> type) {
    return stack.exampleWorkers().example(name, type).orElseThrow();
  }

  /** Starts an order; returns the instance id. */
  String startOrder(String businessKey, Map<String, Object> input) throws Exception {
    String body = JSON.writeValueAsString(Map.of("businessKey", businessKey, "input", input));
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(runtimeUrl()
            + "/api/v1/namespaces/default/workflows/" + WORKFLOW + "/instances"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 201) {
      throw new AssertionError("start answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body()).path("id").asText();
  }

  JsonNode instance(String id) throws Exception {
    return get("/api/v1/instances/" + id);
  }

  /** Waits for an instance to reach a status, then returns it. */
  JsonNode awaitStatus(String id, String status, Duration atMost) {
    JsonNode[] last = new JsonNode[1];
    await(id + " " + status).atMost(atMost).pollInterval(Duration.ofMillis(300)).until(() -> {
      last[0] = instance(id);
      return status.equals(last[0].path("status").asText());
    });
    return last[0];
  }

  JsonNode get(String path) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(runtimeUrl() + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }

  /** Messages ready in a queue, exactly (AMQP passive declare, not the management API's lagging statistics). */
  long messagesIn(String queue) throws Exception {
    try (Connection c = vhost.newConnection("saga-test-count"); Channel ch = c.createChannel()) {
      return ch.queueDeclarePassive(queue).getMessageCount();
    }
  }

  @Override
  public void close() {
    infrastructure.close();
  }
}
