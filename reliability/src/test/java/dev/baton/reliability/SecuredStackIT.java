package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.http.client.domain.UserPermissions;
import dev.baton.api.client.TolerantSerialization;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.devapi.DevApiServer;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.dependent.Credentials;
import dev.baton.reliability.infra.Cmd;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.suite.Wait;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.app.RuntimeSettings;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.slf4j.LoggerFactory;

/**
 * A whole secured run, {@code baton dev} style (dev API, operator, runtime, workers in one process, the CLI as its
 * own process), with every secret a known random value: the broker administrator's password, the runtime's and the
 * workers' generated broker passwords (read from the Secrets the operator wrote), the API tokens, the database
 * password, and passwords that fail on purpose. Every log event at every level (Baton at TRACE, libraries at DEBUG)
 * and the CLI's output are searched for each secret, raw, URL-encoded and base64-encoded: none may appear. The same
 * stack checks that the operator reads the live counts with its token, and that the broker enforces the worker
 * users' permissions (docs/design.md#security; also in operator's and worker-sdk's WorkerPermissionsIT).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecuredStackIT {

  static final String NS = "default";
  static final String ADMIN = "baton-admin-" + UUID.randomUUID().toString().substring(0, 6);
  static final String ADMIN_PASSWORD = "adm-" + UUID.randomUUID();
  static final String TOKEN = "tok-" + UUID.randomUUID();
  static final String READ_TOKEN = "rtok-" + UUID.randomUUID();
  static final String DB_USER = "baton_rt_" + UUID.randomUUID().toString().substring(0, 6);
  static final String DB_PASSWORD = "dbpw-" + UUID.randomUUID();
  static final String WRONG_PASSWORD = "wrongpw-" + UUID.randomUUID();
  static final Map<String, List<String>> SERVICES = new LinkedHashMap<>(Map.of(
      "stock", List.of("reserve", "release"), "pay", List.of("charge"), "ship", List.of("ship")));

  static final List<String> secrets = new ArrayList<>(List.of(ADMIN_PASSWORD, TOKEN, READ_TOKEN, DB_PASSWORD,
      WRONG_PASSWORD));
  static final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  static final Map<String, Level> levelsBefore = new HashMap<>();
  static final List<String> cliOutput = new ArrayList<>();
  static final List<AutoCloseable> toClose = new ArrayList<>();

  static Infra infra;
  static String vhost;
  static String database;
  static DevApiServer api;
  static KubernetesClient client;
  static BatonOperator operator;
  static BatonRuntime runtime;
  static int runtimePort;
  static final Map<String, Map<String, String>> workerCredentials = new HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    captureEverything();
    infra = Infra.get();
    vhost = infra.rabbit.createVhost("secure");
    infra.rabbit.management().createUser(ADMIN, ADMIN_PASSWORD.toCharArray(), List.of("administrator"));
    UserPermissions all = new UserPermissions();
    all.setConfigure(".*");
    all.setWrite(".*");
    all.setRead(".*");
    infra.rabbit.management().updatePermissions(vhost, ADMIN, all);
    database = infra.postgres.createDatabase("secure");
    infra.postgres.admin("CREATE ROLE " + DB_USER + " LOGIN PASSWORD '" + DB_PASSWORD + "'");
    infra.postgres.admin("ALTER DATABASE " + database + " OWNER TO " + DB_USER);

    api = DevApiServer.start("127.0.0.1", 0);
    client = TolerantSerialization.clientBuilder().withConfig(api.clientConfig()).build();
    runtimePort = Cmd.freePort();
    OperatorSettings settings = OperatorSettings.localDefaults().toBuilder()
        .managementUrl(infra.rabbit.managementUrl()).admin(ADMIN, ADMIN_PASSWORD)
        .amqp("127.0.0.1", infra.rabbit.amqpPort()).vhost(vhost).userPrefix("baton-sec-")
        .resync(Duration.ofSeconds(3)).serverSideApply(false).runtimeUrl("http://127.0.0.1:" + runtimePort)
        .countsInterval(Duration.ofSeconds(1)).statusInterval(Duration.ofSeconds(1)).runtimeToken(TOKEN)
        .runtimeCredentialsSecret(NS + "/baton-runtime-broker").build();
    operator = BatonOperator.start(client, settings);

    for (Map.Entry<String, List<String>> s : SERVICES.entrySet()) {
      WorkerService ws = new WorkerService();
      ws.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName(s.getKey()).build());
      WorkerServiceSpec spec = new WorkerServiceSpec();
      s.getValue().forEach(c -> spec.getCommands().add(new CommandSpec(c, null)));
      ws.setSpec(spec);
      client.resource(ws).create();
    }
    Workflow wf = new Workflow();
    wf.setMetadata(new ObjectMetaBuilder().withNamespace(NS).withName("order").build());
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    StepSpec reserve = new StepSpec("reserve", "stock", "reserve");
    reserve.setCompensate("release");
    spec.setSteps(new ArrayList<>(List.of(reserve, new StepSpec("charge", "pay", "charge"),
        new StepSpec("ship", "ship", "ship"))));
    wf.setSpec(spec);
    client.resource(wf).create();
    assertThat(Wait.until(Duration.ofSeconds(60), () -> ready(Workflow.class, "order")
        && SERVICES.keySet().stream().allMatch(s -> ready(WorkerService.class, s)))).as("all Ready").isTrue();

    // the runtime, with the broker user and password the operator generated for it
    Map<String, String> runtimeBroker = secret("baton-runtime-broker");
    secrets.add(runtimeBroker.get(Credentials.PASSWORD));
    runtime = BatonRuntime.start(RuntimeSettings.localDefaults().toBuilder()
        .databaseUrl(infra.postgres.jdbcUrl(database)).databaseUsername(DB_USER).databasePassword(DB_PASSWORD)
        .createDatabase(false).amqpUri(runtimeBroker.get(Credentials.URI)).httpPort(runtimePort)
        .apiToken(TOKEN).apiReadToken(READ_TOKEN).build(), client);
    toClose.add(runtime);

    // the workers, configured from their Secrets as a pod would be
    for (Map.Entry<String, List<String>> s : SERVICES.entrySet()) {
      Map<String, String> credentials = secret(s.getKey() + "-broker-credentials");
      workerCredentials.put(s.getKey(), credentials);
      secrets.add(credentials.get(Credentials.PASSWORD));
      ServiceModel model = new ServiceModel(s.getKey(), QueueType.CLASSIC,
          s.getValue().stream().map(c -> new ServiceModel.Command(c, RetryStaircase.NONE)).toList(), List.of());
      Map<String, String> env = new HashMap<>(new WorkerEnvironment(model, 10).variables());
      env.put(WorkerEnvironment.RABBITMQ_URI, credentials.get(Credentials.URI));
      env.put(WorkerEnvironment.RABBITMQ_USERNAME, credentials.get(Credentials.USERNAME));
      env.put(WorkerEnvironment.RABBITMQ_PASSWORD, credentials.get(Credentials.PASSWORD));
      BatonWorker.Builder b = BatonWorker.builder().fromEnvironment(env);
      s.getValue().forEach(c -> b.command(c, cmd -> CommandResult.success(Map.of("done", cmd.step()))));
      BatonWorker w = b.build();
      w.start();
      toClose.add(0, w);
    }
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c : toClose) {
      try {
        c.close();
      } catch (Exception ignored) {
        // closing
      }
    }
    if (operator != null) {
      operator.close();
    }
    if (client != null) {
      client.close();
    }
    if (api != null) {
      api.close();
    }
    try {
      infra.rabbit.management().getUsers().stream().map(u -> u.getName())
          .filter(n -> n.startsWith("baton-sec-") || n.equals(ADMIN)).forEach(infra.rabbit.management()::deleteUser);
      infra.rabbit.management().deleteVhost(vhost);
      infra.postgres.admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
      infra.postgres.admin("DROP ROLE IF EXISTS " + DB_USER);
    } catch (RuntimeException ignored) {
      // best effort
    }
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.detachAppender(logs);
    LoggerContext ctx = root.getLoggerContext();
    levelsBefore.forEach((name, level) -> ctx.getLogger(name).setLevel(level));
  }

  @Test
  @Order(1)
  void aRunWithTheCliTheOperatorsCountsAndFailuresOnPurpose() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + runtimePort
          + "/api/v1/namespaces/default/workflows/order/instances")).header("Authorization", "Bearer " + TOKEN)
          .POST(HttpRequest.BodyPublishers.ofString("{\"businessKey\":\"sec-" + i + "\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(201);
    }
    String url = "http://127.0.0.1:" + runtimePort;
    cli(Map.of("BATON_RUNTIME_TOKEN", TOKEN), 0, "start", "order", "-k", "sec-cli", "--runtime-url", url);
    cli(Map.of(), 0, "get", "order", "--runtime-url", url, "--token", READ_TOKEN, "-o", "json");
    cli(Map.of("BATON_RUNTIME_TOKEN", READ_TOKEN), 1, "cancel", UUID.randomUUID().toString(), "--runtime-url", url);
    cli(Map.of(), 1, "get", "order", "--runtime-url", url, "--token", WRONG_PASSWORD);
    cli(Map.of("BATON_RABBITMQ_USERNAME", ADMIN, "BATON_RABBITMQ_PASSWORD", ADMIN_PASSWORD,
        "BATON_RABBITMQ_MANAGEMENT_URL", infra.rabbit.managementUrl(), "BATON_RABBITMQ_VHOST", vhost), 0, "dlq", "list");
    cli(Map.of("BATON_RABBITMQ_USERNAME", ADMIN, "BATON_RABBITMQ_PASSWORD", WRONG_PASSWORD,
        "BATON_RABBITMQ_MANAGEMENT_URL", infra.rabbit.managementUrl(), "BATON_RABBITMQ_VHOST", vhost), -1, "dlq", "list");

    // the operator shows live counts: it sends its token to the runtime
    assertThat(Wait.until(Duration.ofSeconds(60), () -> {
      Workflow w = client.resources(Workflow.class).inNamespace(NS).withName("order").get();
      return w.getStatus() != null && w.getStatus().getSucceeded() != null && w.getStatus().getSucceeded() >= 21;
    })).as("the operator reads the counts with BATON_RUNTIME_TOKEN").isTrue();

    // failures on purpose: their messages must not carry the passwords either
    org.slf4j.Logger log = LoggerFactory.getLogger("dev.baton.reliability.SecuredStackIT");
    Map<String, String> pay = workerCredentials.get("pay");
    assertThatThrownBy(() -> BatonRuntime.start(RuntimeSettings.localDefaults().toBuilder()
        .databaseUrl(infra.postgres.jdbcUrl(database)).databaseUsername(DB_USER).databasePassword(DB_PASSWORD)
        .createDatabase(false).amqpUri(infra.rabbit.amqpUri(ADMIN, WRONG_PASSWORD, vhost)).httpPort(0).build(), client))
        .satisfies(e -> log.error("expected: a runtime with a wrong broker password did not start", e));
    assertThatThrownBy(() -> BatonRuntime.start(RuntimeSettings.localDefaults().toBuilder()
        .amqpUri("amqp://u:" + WRONG_PASSWORD + "@[not-a-host/%2F").httpPort(0).build(), client))
        .satisfies(e -> log.error("expected: a runtime with a malformed broker URI did not start", e));
    ServiceModel payModel = new ServiceModel("pay", QueueType.CLASSIC,
        List.of(new ServiceModel.Command("charge", RetryStaircase.NONE)), List.of());
    Map<String, String> env = new HashMap<>(new WorkerEnvironment(payModel, 10).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, pay.get(Credentials.URI).replace(pay.get(Credentials.PASSWORD),
        WRONG_PASSWORD));
    BatonWorker wrong = BatonWorker.builder().fromEnvironment(env)
        .command("charge", cmd -> CommandResult.success()).build();
    assertThatThrownBy(wrong::start).satisfies(e -> log.error("expected: a worker with a wrong password", e));
  }

  @Test
  @Order(2)
  void noSecretAppearsInAnyLogLineOrCliOutput() {
    List<String> lines = new ArrayList<>();
    synchronized (logs) {
      for (ILoggingEvent e : logs.list) {
        lines.add(e.getLevel() + " " + e.getLoggerName() + " " + e.getFormattedMessage() + " " + e.getMDCPropertyMap()
            + throwable(e.getThrowableProxy()));
      }
    }
    lines.addAll(cliOutput);
    assertThat(lines.size()).as("log events captured").isGreaterThan(500);
    assertThat(lines.stream().filter(l -> l.startsWith("DEBUG") || l.startsWith("TRACE")).count())
        .as("DEBUG lines captured").isPositive();
    assertThat(secrets).hasSize(9).doesNotContainNull();
    List<String> leaks = new ArrayList<>();
    for (String secret : secrets) {
      for (String form : List.of(secret, URLEncoder.encode(secret, StandardCharsets.UTF_8),
          Base64.getEncoder().encodeToString(secret.getBytes(StandardCharsets.UTF_8)))) {
        lines.stream().filter(l -> l.contains(form)).findFirst()
            .ifPresent(l -> leaks.add("secret of length " + secret.length() + " in: "
                + l.replace(form, "<SECRET>").substring(0, Math.min(400, l.length()))));
      }
    }
    System.out.printf("SECRETS scanned %d log events and CLI lines for %d secrets (x3 encodings): %d leaks%n",
        lines.size(), secrets.size(), leaks.size());
    assertThat(leaks).isEmpty();
  }

  @Test
  @Order(3)
  void workerUsersCannotWriteCommandsOrReadOtherQueues() throws Exception {
    Map<String, String> pay = workerCredentials.get("pay");
    ConnectionFactory cf = new ConnectionFactory();
    cf.setUri(pay.get(Credentials.URI));
    try (Connection c = cf.newConnection("permissions-probe")) {
      for (String exchange : List.of("pay.command.topic.ex", "stock.command.topic.ex")) {
        Channel ch = c.createChannel();
        ch.confirmSelect();
        ch.basicPublish(exchange, "service.pay.charge", new AMQP.BasicProperties(), new byte[0]);
        assertThatThrownBy(() -> ch.waitForConfirmsOrDie(5_000)).as(exchange).isNotNull();
        assertThat(((AMQP.Channel.Close) ch.getCloseReason().getReason()).getReplyCode()).isEqualTo(403);
      }
      Channel other = c.createChannel();
      assertThatThrownBy(() -> other.basicConsume("q.stock.reserve", false, new DefaultConsumer(other)))
          .hasCauseInstanceOf(ShutdownSignalException.class);
      assertThat(((AMQP.Channel.Close) other.getCloseReason().getReason()).getReplyCode()).isEqualTo(403);
      try (Channel own = c.createChannel()) {
        own.basicCancel(own.basicConsume("q.pay.charge", false, new DefaultConsumer(own)));
      }
    }
  }

  // ---------------------------------------------------------------------------------------------------------------

  static void captureEverything() {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    LoggerContext ctx = root.getLoggerContext();
    Map<String, Level> levels = Map.of("dev.baton", Level.TRACE, "com.zaxxer", Level.DEBUG, "com.rabbitmq",
        Level.DEBUG, "io.javaoperatorsdk", Level.DEBUG, "io.javalin", Level.DEBUG, "org.flywaydb", Level.DEBUG,
        "org.postgresql", Level.DEBUG, "io.fabric8.kubernetes.client", Level.DEBUG);
    // The in-memory stand-in for the Kubernetes API server (the dev API) logs the objects it stores, Secrets
    // included, at DEBUG: it plays etcd here, it is not part of Baton and runs in no cluster. Held at INFO.
    levelsBefore.put("io.fabric8.kubernetes.client.server.mock",
        ctx.getLogger("io.fabric8.kubernetes.client.server.mock").getLevel());
    ctx.getLogger("io.fabric8.kubernetes.client.server.mock").setLevel(Level.INFO);
    levels.forEach((name, level) -> {
      levelsBefore.put(name, ctx.getLogger(name).getLevel());
      ctx.getLogger(name).setLevel(level);
    });
    logs.start();
    root.addAppender(logs);
  }

  static String throwable(IThrowableProxy t) {
    StringBuilder sb = new StringBuilder();
    for (IThrowableProxy p = t; p != null; p = p.getCause()) {
      sb.append(" | ").append(p.getClassName()).append(": ").append(p.getMessage());
      for (IThrowableProxy s : p.getSuppressed()) {
        sb.append(throwable(s));
      }
    }
    return sb.toString();
  }

  static <T extends io.fabric8.kubernetes.api.model.HasMetadata> boolean ready(Class<T> kind, String name) {
    T r = client.resources(kind).inNamespace(NS).withName(name).get();
    if (r instanceof WorkerService ws && ws.getStatus() != null) {
      return ws.getStatus().condition(ConditionTypes.READY).map(c -> "True".equals(c.getStatus())).orElse(false);
    }
    if (r instanceof Workflow wf && wf.getStatus() != null) {
      return wf.getStatus().condition(ConditionTypes.READY).map(c -> "True".equals(c.getStatus())).orElse(false);
    }
    return false;
  }

  static Map<String, String> secret(String name) {
    assertThat(Wait.until(Duration.ofSeconds(30),
        () -> client.resources(Secret.class).inNamespace(NS).withName(name).get() != null)).as(name).isTrue();
    Secret s = client.resources(Secret.class).inNamespace(NS).withName(name).get();
    Map<String, String> m = new HashMap<>();
    for (String key : List.of(Credentials.USERNAME, Credentials.PASSWORD, Credentials.URI)) {
      m.put(key, Credentials.value(s, key).orElseThrow());
    }
    return m;
  }

  /** The CLI as its own process; its stdout and stderr join the lines searched for secrets. */
  static void cli(Map<String, String> env, int expectedExit, String... args) throws Exception {
    ApiTokenIT.Cli r = ApiTokenIT.cli(env, args);
    cliOutput.add("CLI " + String.join(" ", args).replace(READ_TOKEN, "(token)").replace(WRONG_PASSWORD, "(token)")
        + " exit " + r.exit());
    cliOutput.addAll(r.out().lines().toList());
    cliOutput.addAll(r.err().lines().toList());
    if (expectedExit >= 0) {
      assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isEqualTo(expectedExit);
    } else {
      assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isNotZero();
    }
  }
}
