package dev.baton.reliability.suite;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import dev.baton.api.v1alpha1.QueueKind;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.reliability.infra.Cmd;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.infra.JavaProcess;
import dev.baton.reliability.infra.PrivateRabbit;
import dev.baton.reliability.ledger.Ledger;
import dev.baton.reliability.ledger.LedgerWorker;
import dev.baton.testing.MockKubernetes;
import dev.baton.testing.PostgresDatabase;
import dev.baton.testing.TestStack;
import dev.baton.worker.BatonWorker;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One scenario's world: a vhost on the private RabbitMQ node with the topology the operator would declare (same
 * planner) for a three-step saga, the runtime's database on the private PostgreSQL, and over test-support's
 * {@link TestStack} the ledger on the shared one (the private one is restarted by some scenarios; the ledger must not
 * be) and the mock API server with the CRDs and the Workflow; the runtime as its own JVM ({@code dev.baton.runtime.app.Main}, bearer token on), ledger workers in-process
 * or as their own JVMs, and the client side of the ledger: which starts the API accepted.
 */
public final class Rig implements AutoCloseable {

  public static final String NS = "default";
  public static final String WORKFLOW = "order";
  /** service → commands; the saga: reserve (compensate: release), charge, ship. */
  static final Map<String, List<String>> SERVICES = Map.of(
      "stock", List.of("reserve", "release"), "pay", List.of("charge"), "ship", List.of("ship"));
  static final List<String> STAIRCASE_DELAYS = List.of("200ms", "500ms", "1s", "2s");
  static final RetryStaircase STAIRCASE = RetryStaircase.of(8, STAIRCASE_DELAYS);
  static final ObjectMapper JSON = new ObjectMapper();

  public final Infra infra;
  public final String name;
  public final String vhost;
  public final String runtimeDb;
  public final PostgresDatabase ledgerDb;
  public final Ledger ledger;
  public final String apiToken = "rt-" + UUID.randomUUID();
  private final TestStack stack;
  final KubernetesClient client;
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
  private final Set<String> accepted = ConcurrentHashMap.newKeySet();
  private final List<BatonWorker> workers = new ArrayList<>();
  private final Map<String, JavaProcess> workerProcesses = new HashMap<>();
  private final Map<String, Integer> workerRestarts = new HashMap<>();
  private JavaProcess runtime;
  /**
   * Child JVMs with the C1 compiler only: they start in a second or two on a busy machine, which is what the fault
   * scenarios time (restarts). The soak turns it off: its runtime runs as long as a real one, with both compilers.
   */
  private volatile boolean quickStart = true;
  /** Appended to the runtimes' JDBC URL (e.g. a pgjdbc {@code ?socketFactory=} of a scenario's). */
  private volatile String databaseUrlQuery = "";
  /** More {@code BATON_*} variables for the runtime processes (a scenario's limit, say). */
  private final Map<String, String> runtimeEnvExtra = new ConcurrentHashMap<>();
  /** More JVM arguments for the runtime processes. */
  private final List<String> runtimeJvmExtra = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** Applied to every in-process worker's builder (a scenario's handler timeout, say). */
  private volatile java.util.function.UnaryOperator<BatonWorker.Builder> workerBuilder = b -> b;
  /** Called in every in-process handler before its effect (a scenario's hang); none by default. */
  private volatile LedgerWorker.HandlerFault handlerFault = LedgerWorker.HandlerFault.NONE;
  private dev.baton.runtime.app.BatonRuntime inProcess;
  private int runtimePort;
  private int runtimeStarts;
  /** More runtimes beside the first, each {@code baton runtime} in a JVM of its own (several replicas). */
  private final List<RuntimeProcess> replicas = new ArrayList<>();
  private final Connection amqp;
  /** The node the suite administers through (management API, its own AMQP connection). */
  public final PrivateRabbit rabbit;
  /** AMQP ports of every node of a cluster, handed to the runtime and the workers; empty on a single node. */
  private final List<Integer> nodePorts;
  private final QueueType queueType;
  /** service → commands of this rig: {@link #SERVICES}, and more for scenarios that move a step elsewhere. */
  final Map<String, List<String>> services;

  /**
   * What a scenario's world is made of besides the defaults: the broker (one node, or a cluster whose nodes are all
   * given to the runtime and the workers), the queue type, and the services.
   */
  public record Options(PrivateRabbit rabbit, List<Integer> nodePorts, QueueType queueType,
      Map<String, List<String>> services) {

    public static Options of(Infra infra) {
      return new Options(infra.rabbit, List.of(), QueueType.CLASSIC, SERVICES);
    }

    public Options withServices(Map<String, List<String>> more) {
      Map<String, List<String>> all = new java.util.LinkedHashMap<>(services);
      all.putAll(more);
      return new Options(rabbit, nodePorts, queueType, all);
    }
  }

  /** A runtime replica: {@code baton runtime} in a JVM of its own, and its HTTP port. */
  public record RuntimeProcess(int port, JavaProcess process) {}

  private Rig(Infra infra, String name, Options options) {
    this.infra = infra;
    this.name = name;
    this.rabbit = options.rabbit();
    this.nodePorts = List.copyOf(options.nodePorts());
    this.queueType = options.queueType();
    this.services = Map.copyOf(options.services());
    this.vhost = rabbit.createVhost("fi-" + name);
    this.runtimeDb = infra.postgres.createDatabase("fi_" + name.replace('-', '_'));
    // all three kinds in the mock API: some scenarios run the operator too
    this.stack = TestStack.builder("ledger-" + name).database().kubernetes(MockKubernetes.ALL_CRDS)
        .amqp(() -> rabbit.connectionFactory(vhost).newConnection("suite-admin")).start();
    stack.own(this::dropVhostAndRuntimeDb);
    this.ledgerDb = stack.database();
    this.ledger = stack.own(new Ledger(ledgerDb.jdbcUrl(), ledgerDb.user(), ledgerDb.password(), 12));
    ledger.createSchema();
    client = stack.client();
    amqp = stack.amqp();
    declareTopologyAndWorkflow();
  }

  public static Rig create(Infra infra, String name) {
    return new Rig(infra, name, Options.of(infra));
  }

  public static Rig create(Infra infra, String name, Options options) {
    return new Rig(infra, name, options);
  }

  public static ServiceModel model(String service) {
    return new ServiceModel(service, QueueType.CLASSIC,
        SERVICES.get(service).stream().map(c -> new ServiceModel.Command(c, STAIRCASE)).toList(), List.of());
  }

  /** This rig's model of {@code service}: its commands and queue type, the suite's staircase. */
  public ServiceModel serviceModel(String service) {
    return new ServiceModel(service, queueType,
        services.get(service).stream().map(c -> new ServiceModel.Command(c, STAIRCASE)).toList(), List.of());
  }

  public QueueType queueType() {
    return queueType;
  }

  /** {@code 127.0.0.1:port} of every node, for {@code BATON_RABBITMQ_ADDRESSES}; empty on a single node. */
  public List<String> addresses() {
    return nodePorts.stream().map(p -> "127.0.0.1:" + p).toList();
  }

  private void declareTopologyAndWorkflow() {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setQueueType(queueType == QueueType.QUORUM ? QueueKind.QUORUM : QueueKind.CLASSIC);
    spec.setSteps(new ArrayList<>(List.of(step("reserve", "stock", "reserve", "release"),
        step("charge", "pay", "charge", null), step("ship", "ship", "ship", null))));
    services.keySet().forEach(service -> stack.declare(serviceModel(service)));
    stack.declareWorkflow(WORKFLOW, spec, queueType);
    stack.applyWorkflow(WORKFLOW, spec);
  }

  static StepSpec step(String name, String service, String command, String compensate) {
    StepSpec s = new StepSpec(name, service, command);
    s.setCompensate(compensate);
    s.setTimeout("10m"); // far beyond any outage here: no timeout re-dispatch muddies the ledger
    return s;
  }

  // --- the runtime, as its own process --------------------------------------------------------------------------

  public Map<String, String> runtimeEnv(int port) {
    Map<String, String> env = new HashMap<>();
    env.put("BATON_DATABASE_URL", infra.postgres.jdbcUrl(runtimeDb) + databaseUrlQuery);
    env.put("BATON_DATABASE_USERNAME", "postgres");
    env.put("BATON_DATABASE_CREATE", "false");
    env.put("BATON_RABBITMQ_URI", rabbit.amqpUri(vhost));
    if (!nodePorts.isEmpty()) {
      env.put("BATON_RABBITMQ_ADDRESSES", String.join(",", addresses()));
    }
    env.put("BATON_HTTP_PORT", String.valueOf(port));
    env.put("BATON_API_TOKEN", apiToken);
    env.put("BATON_OUTBOX_POLL_INTERVAL", "500ms");
    env.put("BATON_CONSUMER_RETRY_INTERVAL", "500ms");
    env.put("BATON_METRICS_REFRESH_INTERVAL", "2s");
    env.putAll(runtimeEnvExtra);
    return env;
  }

  public synchronized void startRuntime() {
    runtimePort = Cmd.freePort();
    runtimeStarts++;
    Path log = Infra.logDir().resolve(name + "-runtime-" + runtimeStarts + ".log");
    runtime = JavaProcess.start("dev.baton.runtime.app.Main", runtimeEnv(runtimePort), runtimeJvmArgs(), log);
    awaitHealthy(Duration.ofSeconds(90));
  }

  /**
   * One more runtime replica against the same database and broker, started as a user would: {@code baton runtime
   * --http-port N} (the CLI's main) in a JVM of its own. Clients spread their starts over every live replica.
   */
  public synchronized RuntimeProcess startReplica() {
    int port = Cmd.freePort();
    runtimeStarts++;
    Map<String, String> env = runtimeEnv(port);
    env.put("BATON_HOME", Infra.logDir().toAbsolutePath().toString()); // no .baton/kubeconfig there: -D flags below
    JavaProcess p = JavaProcess.start("dev.baton.cli.BatonCli", List.of("runtime", "--http-port", String.valueOf(port)),
        env, runtimeJvmArgs(), Infra.logDir().resolve(name + "-replica-" + runtimeStarts + ".log"));
    RuntimeProcess replica = new RuntimeProcess(port, p);
    replicas.add(replica);
    awaitHealthy(port, p, Duration.ofSeconds(90));
    return replica;
  }

  public synchronized List<RuntimeProcess> replicas() {
    return List.copyOf(replicas);
  }

  /** The HTTP ports of every runtime process still alive (the first runtime's first). */
  synchronized List<Integer> livePorts() {
    List<Integer> ports = new ArrayList<>();
    if (runtime == null ? inProcess != null : runtime.isAlive()) {
      ports.add(runtimePort);
    }
    replicas.stream().filter(r -> r.process().isAlive()).forEach(r -> ports.add(r.port()));
    return ports.isEmpty() ? List.of(runtimePort) : ports;
  }

  private List<String> runtimeJvmArgs() {
    List<String> args = new ArrayList<>(jvmArgs("-Dkubernetes.master=" + client.getMasterUrl(),
        "-Dkubernetes.auth.tryKubeConfig=false", "-Dkubernetes.auth.tryServiceAccount=false"));
    args.addAll(runtimeJvmExtra);
    return args;
  }

  /** The runtime in this JVM instead, e.g. with other settings ({@link #runtimeEnv} read as {@code Main} would). */
  public synchronized dev.baton.runtime.app.BatonRuntime startInProcess(dev.baton.runtime.app.RuntimeSettings settings) {
    inProcess = dev.baton.runtime.app.BatonRuntime.start(settings, client);
    runtimePort = inProcess.httpPort();
    return inProcess;
  }

  /** What {@code Main} would read from {@link #runtimeEnv}, with any free HTTP port. */
  public dev.baton.runtime.app.RuntimeSettings settings() {
    return dev.baton.runtime.app.RuntimeSettings.fromEnvironment(runtimeEnv(0));
  }

  public synchronized void stopInProcess() {
    if (inProcess != null) {
      inProcess.close();
      inProcess = null;
    }
  }

  public synchronized void killRuntime() {
    runtime.kill();
  }

  public JavaProcess runtimeProcess() {
    return runtime;
  }

  public void awaitHealthy(Duration within) {
    awaitHealthy(runtimePort, runtime, within);
  }

  private void awaitHealthy(int port, JavaProcess process, Duration within) {
    Instant until = Instant.now().plus(within);
    while (Instant.now().isBefore(until)) {
      if (process != null && !process.isAlive()) {
        throw new IllegalStateException("the runtime process died; see " + process.log());
      }
      try {
        if (send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz")).GET()).statusCode()
            == 200) {
          return;
        }
      } catch (RuntimeException notYet) {
        // starting
      }
      sleep(200);
    }
    throw new IllegalStateException("the runtime is not healthy within " + within);
  }

  public int runtimePort() {
    return runtimePort;
  }

  // --- workers ----------------------------------------------------------------------------------------------------

  /** One in-process ledger worker per service. */
  public void startWorkers(long workMillis) {
    for (String service : services.keySet()) {
      BatonWorker.Builder b = BatonWorker.builder().environment(new WorkerEnvironment(serviceModel(service), 20))
          .connectionFactory(rabbit.connectionFactory(vhost)).addresses(addresses()).concurrency(2)
          .connectionName("baton-worker-" + service + "-" + name);
      BatonWorker w = LedgerWorker.build(workerBuilder.apply(b), serviceModel(service), ledger,
          service + "-in-process", workMillis, handlerFault).build();
      w.start();
      workers.add(w);
    }
  }

  /** The ledger worker of {@code service} in a JVM of its own. */
  public synchronized void startWorkerProcess(String service, long workMillis) {
    int n = workerRestarts.merge(service, 1, Integer::sum);
    Map<String, String> env = new HashMap<>(new WorkerEnvironment(serviceModel(service), 20).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, rabbit.amqpUri(vhost));
    if (!nodePorts.isEmpty()) {
      env.put("BATON_RABBITMQ_ADDRESSES", String.join(",", addresses()));
    }
    env.put(LedgerWorker.LEDGER_JDBC_URL, ledgerDb.jdbcUrl());
    env.put(LedgerWorker.WORK_MILLIS, String.valueOf(workMillis));
    env.put(LedgerWorker.WORKER_NAME, service + "-process-" + n);
    workerProcesses.put(service, JavaProcess.start(LedgerWorker.class.getName(), env, jvmArgs(),
        Infra.logDir().resolve(name + "-worker-" + service + "-" + n + ".log")));
  }

  private List<String> jvmArgs(String... more) {
    List<String> args = new ArrayList<>(quickStart ? List.of("-XX:TieredStopAtLevel=1") : List.of());
    args.addAll(List.of(more));
    return args;
  }

  public synchronized JavaProcess workerProcess(String service) {
    return workerProcesses.get(service);
  }

  // --- HTTP ---------------------------------------------------------------------------------------------------------

  public HttpResponse<String> get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  /** A request exactly as given: no token added. */
  public HttpResponse<String> raw(HttpRequest.Builder request) {
    try {
      return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException("HTTP request failed: " + e, e);
    }
  }

  public URI url(String path) {
    return uri(path);
  }

  /** The start request's body for {@code key}; scenarios may give some instances other inputs. */
  private volatile java.util.function.Function<String, String> startBody =
      key -> "{\"businessKey\":\"" + key + "\",\"input\":{\"amount\":42}}";

  private String startBody(String key) {
    return startBody.apply(key);
  }

  public HttpResponse<String> post(String path, String body) {
    return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  private URI uri(String path) {
    return URI.create("http://127.0.0.1:" + runtimePort + path);
  }

  private HttpResponse<String> send(HttpRequest.Builder b) {
    try {
      return http.send(b.header("Authorization", "Bearer " + apiToken).timeout(Duration.ofSeconds(20)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException("HTTP request failed: " + e, e);
    }
  }

  /** Starts the instance of {@code key}, retrying until the API accepts it or the deadline passes. */
  public boolean startOne(String key, Instant until) {
    int attempt = 0;
    while (Instant.now().isBefore(until)) {
      List<Integer> ports = livePorts(); // a replica that does not answer: the next attempt asks another
      int port = ports.get(Math.floorMod(key.hashCode() + attempt++, ports.size()));
      try {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/namespaces/"
                + NS + "/workflows/" + WORKFLOW + "/instances")).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(startBody(key))));
        if (r.statusCode() / 100 == 2) {
          accepted.add(key);
          return true;
        }
      } catch (RuntimeException down) {
        // the runtime is down: try again
      }
      sleep(250);
    }
    return false;
  }

  /**
   * Starts instances {@code key-from .. key-(to-1)} from {@code threads} clients, each retried until the API accepts
   * it (the runtime may be down or its database away meanwhile; the business key makes a repeated start return the
   * same instance). The future completes when every start was accepted or gave up.
   */
  public Future<?> startInstances(int from, int to, int threads, Duration deadline) {
    return startInstances(from, to, threads, deadline, Duration.ZERO);
  }

  /** As {@link #startInstances(int, int, int, Duration)}, the starts spread evenly over {@code spread}. */
  public Future<?> startInstances(int from, int to, int threads, Duration deadline, Duration spread) {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    Instant until = Instant.now().plus(deadline);
    long t0 = System.nanoTime();
    for (int i = from; i < to; i++) {
      String key = "key-" + i;
      long at = t0 + spread.toNanos() * (i - from) / Math.max(1, to - from);
      pool.submit(() -> {
        long wait = at - System.nanoTime();
        if (wait > 0) {
          sleep(wait / 1_000_000);
        }
        return startOne(key, until);
      });
    }
    pool.shutdown();
    return java.util.concurrent.CompletableFuture.runAsync(() -> {
      try {
        pool.awaitTermination(deadline.toMillis() + 60_000, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  // --- what the database says ---------------------------------------------------------------------------------------

  /** A count from the runtime's database, or -1 while it cannot be read (e.g. being restarted). */
  public long runtimeCount(String sql) {
    try (java.sql.Connection c = DriverManager.getConnection(infra.postgres.jdbcUrl(runtimeDb), "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return -1;
    }
  }

  /** The first column of every row of a query on the runtime's database. */
  public List<String> runtimeStrings(String sql) {
    List<String> values = new ArrayList<>();
    try (java.sql.Connection c = DriverManager.getConnection(infra.postgres.jdbcUrl(runtimeDb), "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return values;
  }

  /**
   * Business keys of instances a scenario breaks on purpose (their definition no longer loads, their output is too
   * large): they must end — FAILED, COMPENSATED — not stay RUNNING; the others must succeed.
   */
  private final Set<String> mayFail = ConcurrentHashMap.newKeySet();

  /** Instances that ended, in any way. */
  public long finished() {
    return runtimeCount("SELECT count(*) FROM workflow_instance WHERE finished_at IS NOT NULL");
  }

  public long succeeded() {
    return runtimeCount("SELECT count(*) FROM workflow_instance WHERE status = 'SUCCEEDED'");
  }

  /** Waits until {@code condition} holds; false if it did not within {@code within}. */
  public static boolean await(Duration within, Supplier<Boolean> condition) {
    Instant until = Instant.now().plus(within);
    while (Instant.now().isBefore(until)) {
      if (condition.get()) {
        return true;
      }
      sleep(200);
    }
    return condition.get();
  }

  /** Seconds until the succeeded count passes {@code before}; NaN if it does not within {@code within}. */
  /**
   * Seconds until an instance completes after {@code before} completions, NaN if none does within the bound. When
   * every accepted instance has completed already (a fast wave can finish before its fault is over) there is nothing
   * to recover to: that counts as progress, and the next wave's drain is what proves the recovery.
   */
  public double secondsUntilProgress(long before, Duration within) {
    long t0 = System.nanoTime();
    return await(within, () -> {
      long done = succeeded();
      return done > before || done >= accepted.size();
    }) ? (System.nanoTime() - t0) / 1e9 : Double.NaN;
  }

  public long messagesIn(String queue) {
    try (Channel ch = amqp.createChannel()) {
      return ch.messageCount(queue);
    } catch (Exception e) {
      return -1;
    }
  }

  /** Messages in every parking queue of the vhost (commands and the orchestrator's). */
  public long parked() {
    long n = messagesIn(Names.orchestratorDeadLetterQueue(WORKFLOW));
    for (Map.Entry<String, List<String>> s : services.entrySet()) {
      for (String c : s.getValue()) {
        n += messagesIn(Names.deadLetterQueue(s.getKey(), c));
      }
    }
    return n;
  }

  /** Commands or events still waiting: outbox rows and messages in command and orchestrator queues. */
  /** Where the {@link #leftovers()} are, for the notes. */
  public String leftoversDetail() {
    StringBuilder sb = new StringBuilder("outbox " + Math.max(0, runtimeCount("SELECT count(*) FROM outbox")));
    sb.append(", ").append(Names.orchestratorQueue(WORKFLOW)).append(' ')
        .append(messagesIn(Names.orchestratorQueue(WORKFLOW)));
    services.forEach((service, commands) -> commands.forEach(c -> {
      long m = messagesIn(Names.consumerQueue(service, c));
      if (m != 0) {
        sb.append(", ").append(Names.consumerQueue(service, c)).append(' ').append(m);
      }
    }));
    return sb.toString();
  }

  public long leftovers() {
    long n = Math.max(0, runtimeCount("SELECT count(*) FROM outbox"));
    n += messagesIn(Names.orchestratorQueue(WORKFLOW));
    for (Map.Entry<String, List<String>> s : services.entrySet()) {
      for (String c : s.getValue()) {
        n += messagesIn(Names.consumerQueue(s.getKey(), c));
      }
    }
    return n;
  }

  /**
   * The verdict from the ledger and the database: accepted starts missing from the database, or SUCCEEDED without
   * an effect for each step, are lost; a (instance, step, action) with more than one effect is applied twice; an
   * accepted instance not SUCCEEDED after the drain is stuck.
   */
  public Counts counts() {
    Map<String, String> statusByKey = new HashMap<>();
    Map<String, String> idByKey = new HashMap<>();
    try (java.sql.Connection c = DriverManager.getConnection(infra.postgres.jdbcUrl(runtimeDb), "postgres", "");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT business_key, status, id FROM workflow_instance")) {
      while (rs.next()) {
        statusByKey.put(rs.getString(1), rs.getString(2));
        idByKey.put(rs.getString(1), rs.getString(3));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    Map<String, Integer> effects = ledger.effectsPerInstance();
    long lost = 0;
    long stuck = 0;
    for (String key : accepted) {
      String status = statusByKey.get(key);
      if (status == null) {
        lost++;
      } else if (mayFail.contains(key)) {
        stuck += "RUNNING".equals(status) || "COMPENSATING".equals(status) ? 1 : 0; // must end, in any way
      } else if (!"SUCCEEDED".equals(status)) {
        stuck++;
      } else if (effects.getOrDefault(idByKey.get(key), 0) < 3) {
        lost++;
      }
    }
    return new Counts(accepted.size(), lost, ledger.appliedTwice(), stuck, parked(), leftovers(),
        runtimeCount("SELECT count(*) FROM instance_step WHERE attempt > 1"));
  }

  /** @param redispatched step executions beyond the first attempt (a timeout re-dispatch would show here) */
  public record Counts(int accepted, long lost, long appliedTwice, long stuck, long parked, long leftovers,
      long redispatched) {}

  public static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  // --- what a scenario changes before it starts the rig's processes ----------------------------------------------

  /** Whether child JVMs run the C1 compiler only (see the field); the soak turns it off. */
  public void quickStart(boolean on) {
    quickStart = on;
  }

  /** Appended to the runtimes' JDBC URL. */
  public void databaseUrlQuery(String query) {
    databaseUrlQuery = query;
  }

  /** One more JVM argument for the runtime processes. */
  public void addRuntimeJvmArgument(String argument) {
    runtimeJvmExtra.add(argument);
  }

  /** One more {@code BATON_*} variable for the runtime processes. */
  public void runtimeEnv(String name, String value) {
    runtimeEnvExtra.put(name, value);
  }

  /** Applied to every in-process worker's builder from now on. */
  public void workerBuilder(java.util.function.UnaryOperator<BatonWorker.Builder> change) {
    workerBuilder = change;
  }

  /** Called in every in-process handler started from now on, before its effect. */
  public void handlerFault(LedgerWorker.HandlerFault fault) {
    handlerFault = fault;
  }

  /** The start request's body for a business key, for the starts from now on. */
  public void startBody(java.util.function.Function<String, String> body) {
    startBody = body;
  }

  /** Marks an instance as broken on purpose: it must end, in any status ({@link #counts()}). */
  public void mayFail(String businessKey) {
    mayFail.add(businessKey);
  }

  /** The instances broken on purpose so far. */
  public Set<String> mayFail() {
    return java.util.Collections.unmodifiableSet(mayFail);
  }

  /** The business keys whose start the API accepted so far. */
  public Set<String> accepted() {
    return java.util.Collections.unmodifiableSet(accepted);
  }

  public Connection amqp() {
    return amqp;
  }

  @Override
  public void close() {
    for (BatonWorker w : workers) {
      try {
        w.close();
      } catch (RuntimeException ignored) {
        // closing
      }
    }
    workerProcesses.values().forEach(JavaProcess::stop);
    if (runtime != null) {
      runtime.stop();
    }
    replicas.forEach(r -> r.process().stop());
    stopInProcess();
    stack.close();
  }

  /** Best effort: the private servers may be down after a scenario. */
  private void dropVhostAndRuntimeDb() {
    try {
      rabbit.management().deleteVhost(vhost);
    } catch (RuntimeException ignored) {
      // best effort
    }
    try {
      infra.postgres.admin("DROP DATABASE IF EXISTS " + runtimeDb + " WITH (FORCE)");
    } catch (RuntimeException ignored) {
      // best effort
    }
  }

  public static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      return null;
    }
  }
}
