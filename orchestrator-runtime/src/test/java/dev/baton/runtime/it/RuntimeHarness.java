package dev.baton.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Connection;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.app.RuntimeSettings;
import dev.baton.runtime.tracing.RuntimeTracing;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.PostgresDatabase;
import dev.baton.sandbox.RabbitVhost;
import dev.baton.sandbox.Sandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What an integration test class of the runtime stands on: the shared {@link Sandbox} (a fresh vhost on the real
 * RabbitMQ, a fresh database on the real PostgreSQL, the mock API server with the Workflow CRD, the topology the
 * operator would declare) and the runtime itself, with the HTTP and database reads the tests make. Public for the
 * worker conformance suite ({@code conformance/}), which stands on it through this module's test jar.
 */
public final class RuntimeHarness implements AutoCloseable {

  public static final String NS = Sandbox.NAMESPACE;
  public static final ObjectMapper JSON = new ObjectMapper();

  private final Sandbox stack;
  public final RabbitVhost vhost;
  final PostgresDatabase database;
  final KubernetesClient client;
  public final Connection amqp;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  BatonRuntime runtime;
  private int port;

  private RuntimeHarness(Sandbox stack) {
    this.stack = stack;
    vhost = stack.vhost();
    database = stack.database();
    client = stack.client();
    amqp = stack.amqp();
  }

  /**
   * The stack under the runtime, for a suite outside this module (the worker conformance suite, through this
   * module's test jar) that declares topologies of its own.
   */
  public Sandbox sandbox() {
    return stack;
  }

  /** The kinds the runtime watches: Workflows, and WorkerServices (their spec.paused). */
  static final List<String> RUNTIME_CRDS = List.of("workflows.baton.dev-v1.yml", "workerservices.baton.dev-v1.yml");

  public static RuntimeHarness create(String prefix) {
    return Sandbox.builder(prefix).vhost().database().kubernetes(RUNTIME_CRDS).start(RuntimeHarness::new);
  }

  /** With a cluster whose TokenReviews and SubjectAccessReviews {@code auth} answers (Kubernetes mode). */
  static RuntimeHarness create(String prefix, FakeClusterAuth auth) {
    return Sandbox.builder(prefix).vhost().database().kubernetes(RUNTIME_CRDS, auth.expectations())
        .start(RuntimeHarness::new);
  }

  /** Settings for this vhost and database, with short intervals so tests do not wait on pollers. */
  RuntimeSettings settings() {
    return RuntimeSettings.localDefaults().toBuilder()
        .databaseUrl(database.jdbcUrl())
        .databaseUsername(database.user())
        .databasePassword(database.password())
        .createDatabase(false)
        .amqpUri(vhost.amqpUri(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD))
        .httpPort(0)
        .timeoutPollInterval(Duration.ofMillis(200))
        .outboxPollInterval(Duration.ofMillis(500))
        .consumerRetryInterval(Duration.ofMillis(500))
        .metricsRefreshInterval(Duration.ofSeconds(1))
        .build();
  }

  /**
   * The runtime's own broker user, with exactly the permissions the operator grants it (docs/design.md#security): it may write
   * only command exchanges and the default exchange, read only orchestrator queues, configure nothing.
   */
  RuntimeSettings asRuntimeUser(RuntimeSettings settings) {
    String user = "baton-runtime-" + vhost.name();
    String password = UUID.randomUUID().toString();
    vhost.createUser(user, password, TopologyPlanner.orchestratorPermissions());
    stack.own(() -> vhost.management().deleteUser(user));
    return settings.toBuilder().amqpUri(vhost.amqpUri(user, password)).build();
  }

  public BatonRuntime startRuntime() {
    return startRuntime(settings());
  }

  BatonRuntime startRuntime(RuntimeSettings settings) {
    return startRuntime(settings, null);
  }

  /** With spans going to {@code tracing} (null: the {@code OTEL_*} variables). */
  BatonRuntime startRuntime(RuntimeSettings settings, RuntimeTracing tracing) {
    runtime = BatonRuntime.start(settings, client, tracing);
    port = runtime.httpPort();
    return runtime;
  }

  void stopRuntime() {
    if (runtime != null) {
      runtime.close();
      runtime = null;
    }
  }

  /** Talk to a runtime that is not {@link #runtime} (e.g. in another process). */
  void usePort(int port) {
    this.port = port;
  }

  /**
   * Starts {@link dev.baton.runtime.app.Main} in a new JVM with this test's classpath, configured through the
   * environment only, and points the harness's HTTP calls at it; its output goes to {@code target/<name>.log}. A test
   * that kills it with SIGKILL ({@code destroyForcibly}) sees what a crash leaves.
   */
  Process launch(String name) throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    RuntimeSettings s = settings();
    String javaCommand = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    ProcessBuilder pb = new ProcessBuilder(List.of(javaCommand, "-Xmx256m", "-XX:+UseSerialGC",
        "-cp", System.getProperty("java.class.path"),
        "-Dkubernetes.master=" + client.getMasterUrl(),
        "-Dkubernetes.auth.tryKubeConfig=false",
        "-Dkubernetes.auth.tryServiceAccount=false",
        dev.baton.runtime.app.Main.class.getName()));
    Map<String, String> env = pb.environment();
    env.put("BATON_DATABASE_URL", s.databaseUrl());
    env.put("BATON_DATABASE_USERNAME", s.databaseUsername());
    env.put("BATON_DATABASE_PASSWORD", s.databasePassword());
    env.put("BATON_DATABASE_CREATE", "false");
    env.put("BATON_RABBITMQ_URI", s.amqpUri());
    env.put("BATON_HTTP_PORT", String.valueOf(port));
    env.put("BATON_OUTBOX_POLL_INTERVAL", "500ms");
    env.put("BATON_CONSUMER_RETRY_INTERVAL", "500ms");
    File log = Path.of("target", name + ".log").toFile();
    pb.redirectErrorStream(true).redirectOutput(log);
    Process p = pb.start();
    usePort(port);
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
      assertThat(p.isAlive()).as("runtime process alive, see " + log).isTrue();
      return get("/healthz").status() == 200;
    });
    return p;
  }

  TestWorker worker() {
    return stack.own(new TestWorker(amqp));
  }

  // --- workflows ---------------------------------------------------------------------------------------------

  static WorkflowSpec spec(String entity, StepSpec... steps) {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity(entity);
    spec.setSteps(new ArrayList<>(List.of(steps)));
    return spec;
  }

  private static final ObjectMapper YAML = new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());

  /** A spec written as in a resource (YAML flow style). */
  /** JSON text as a tree, for the bodies and outputs tests compare. */
  public static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  static WorkflowSpec yaml(String spec) {
    try {
      return YAML.readValue(spec, WorkflowSpec.class);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not a Workflow spec: " + spec, e);
    }
  }

  static StepSpec step(String name, String service, String command, String compensate) {
    StepSpec s = new StepSpec(name, service, command);
    s.setCompensate(compensate);
    return s;
  }

  /** Declares the topology the operator would (same planner), then creates or replaces the Workflow resource. */
  Workflow apply(String name, WorkflowSpec spec) {
    declareTopology(name, spec);
    return stack.applyWorkflow(name, spec);
  }

  /** Creates or replaces the WorkerService {@code name}: whether it is paused, its commands (their maxInFlight). */
  void applyService(String name, boolean paused, CommandSpec... commands) {
    stack.applyWorkerService(name, paused, List.of(commands));
  }

  /** A command of a WorkerService, at most {@code maxInFlight} at once (null: no limit). */
  static CommandSpec command(String name, Integer maxInFlight) {
    return Sandbox.command(name, maxInFlight);
  }

  void declareTopology(String name, WorkflowSpec spec) {
    stack.declareTopology(name, spec, QueueType.CLASSIC, RetryStaircase.NONE);
  }

  // --- HTTP --------------------------------------------------------------------------------------------------

  public record Response(int status, JsonNode json, String text, java.net.http.HttpHeaders headers) {}

  Response post(String path, String body) {
    return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body)));
  }

  /** A POST with an Idempotency-Key, as a client that may send it again does. */
  Response post(String path, String body, String idempotencyKey) {
    return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
        .header("Idempotency-Key", idempotencyKey)
        .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body)));
  }

  Response get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  /** A GET with {@code Authorization: Bearer <token>}. */
  Response get(String path, String token) {
    return send(HttpRequest.newBuilder(uri(path)).header("Authorization", "Bearer " + token).GET());
  }

  /** A POST with {@code Authorization: Bearer <token>}, and an Idempotency-Key unless it is null. */
  Response post(String path, String body, String token, String idempotencyKey) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
        .header("Authorization", "Bearer " + token)
        .POST(HttpRequest.BodyPublishers.ofString(body == null ? "" : body));
    return send(idempotencyKey == null ? b : b.header("Idempotency-Key", idempotencyKey));
  }

  public Response start(String workflow, String businessKey, String inputJson) {
    return post("/api/v1/namespaces/" + NS + "/workflows/" + workflow + "/instances",
        "{\"businessKey\":\"" + businessKey + "\",\"input\":" + inputJson + "}");
  }

  UUID startOk(String workflow, String businessKey) {
    Response r = start(workflow, businessKey, "{\"n\":1}");
    assertThat(r.status()).as(r.text()).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  public JsonNode instance(UUID id) {
    Response r = get("/api/v1/instances/" + id);
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    return r.json();
  }

  public JsonNode awaitStatus(UUID id, String status, Duration within) {
    await().atMost(within).pollInterval(Duration.ofMillis(100))
        .untilAsserted(() -> assertThat(status(id)).isEqualTo(status));
    return instance(id);
  }

  /** Read straight from the database (works while no runtime runs). */
  String status(UUID id) throws SQLException {
    return scalar("SELECT status FROM workflow_instance WHERE id = '" + id + "'");
  }

  String scalar(String sql) throws SQLException {
    try (java.sql.Connection c = database.connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  long count(String sql) throws SQLException {
    String v = scalar(sql);
    return v == null ? 0 : Long.parseLong(v);
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + port + path);
  }

  private Response send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> r = http.send(request.timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      JsonNode json = null;
      try {
        json = r.body().isEmpty() ? null : JSON.readTree(r.body());
      } catch (Exception notJson) {
        // left null: the assertion on the body says so
      }
      return new Response(r.statusCode(), json, r.body(), r.headers());
    } catch (Exception e) {
      throw new IllegalStateException("HTTP request failed", e);
    }
  }

  /** A counter of the in-process runtime, 0 when it was never incremented. */
  double counter(String name, String workflow) {
    var c = runtime.metrics().registry().find(name).tag("workflow", workflow).counters();
    return c.stream().mapToDouble(io.micrometer.core.instrument.Counter::count).sum();
  }

  @Override
  public void close() {
    try {
      stopRuntime();
    } finally {
      stack.close();
    }
  }
}
