package dev.baton.bench;

import com.rabbitmq.client.Channel;
import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CaseSpec;
import dev.baton.api.v1alpha1.MapSpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.runtime.app.BatonRuntime;
import dev.baton.runtime.app.RuntimeSettings;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.MockKubernetes;
import dev.baton.sandbox.Sandbox;
import dev.baton.worker.BatonWorker;
import dev.baton.worker.CommandResult;
import dev.baton.workflow.WorkflowSpecs;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one Baton measurement stands on, as the product runs it: the shared {@link Sandbox} (a fresh vhost on
 * the real RabbitMQ, a fresh database on the real PostgreSQL, the mock API server holding the Workflow resource the
 * runtime watches, the topology the operator would declare: same planner, so no operator is needed), the real
 * runtime ({@link BatonRuntime#start}) and no-op workers written with the worker SDK. Closing it removes the vhost,
 * the database and everything else.
 */
final class Stack implements AutoCloseable {

  static final String NS = Sandbox.NAMESPACE;
  static final String WORKFLOW = "bench";
  static final String ENTITY = "order";
  /** Steps spread over at most this many services, as a real workflow spreads over a few (one worker each). */
  static final int MAX_SERVICES = 3;

  final BenchConfig config;
  private final Sandbox stack;
  final WorkflowSpec spec;
  BatonRuntime runtime;
  private final List<BatonWorker> workers = new ArrayList<>();
  /** While set: when the workers received each command ("instance/step/attempt"), for the hop breakdown. */
  volatile Map<String, java.time.Instant> commandsSeen;

  private Stack(BenchConfig config, WorkflowSpec spec, Sandbox stack) {
    this.config = config;
    this.spec = spec;
    this.stack = stack;
  }

  /** A fresh stack with the workflow's topology declared and the Workflow resource created (runtime not started). */
  static Stack create(BenchConfig config, String prefix) {
    WorkflowSpec spec = spec(config);
    return Sandbox.builder(prefix).vhost().database().kubernetes(config.maxInFlight() > 0 ? LIMITED_CRDS
            : MockKubernetes.WORKFLOW_CRD)
        .with(s -> Resources.trackDatabase(s.database().name()))
        .with(s -> s.declareTopology(WORKFLOW, spec, config.queueType(), RetryStaircase.NONE))
        .with(s -> s.applyWorkflow(WORKFLOW, spec))
        .with(s -> applyLimits(s, config.maxInFlight(), commandsByService(spec)))
        .start(s -> new Stack(config, spec, s));
  }

  /** With a limit: the WorkerServices the runtime reads it from (their commands' maxInFlight). */
  private static final List<String> LIMITED_CRDS = List.of("workflows.baton.dev-v1.yml",
      "workerservices.baton.dev-v1.yml");

  /** Every command of every service at most {@code maxInFlight} at once (none: nothing to create). */
  private static void applyLimits(Sandbox s, int maxInFlight, Map<String, List<String>> commands) {
    if (maxInFlight <= 0) {
      return;
    }
    commands.forEach((service, names) -> s.applyWorkerService(service, false,
        names.stream().map(name -> Sandbox.command(name, maxInFlight)).toList()));
  }

  /** With a limit: waits until the runtime has recorded every command's (its relay knows them from then on). */
  void awaitLimits(Duration within) throws InterruptedException, SQLException {
    if (config.maxInFlight() <= 0) {
      return;
    }
    long expected = commandsByService().values().stream().mapToLong(List::size).sum();
    long deadline = System.nanoTime() + within.toNanos();
    while (count("SELECT count(*) FROM command_limit") < expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the runtime did not record the commands' limits within " + within);
      }
      Thread.sleep(100);
    }
  }

  static String service(int stepIndex) {
    return "bench-s" + (stepIndex % MAX_SERVICES);
  }

  static String command(int stepIndex) {
    return "step" + stepIndex;
  }

  /** The command (and service) index task {@code i} runs: its own, or one of {@link BenchConfig#commands} in turn. */
  static int commandIndex(int task, int commands) {
    return commands > 0 ? task % commands : task;
  }

  static WorkflowSpec spec(int steps, String timeout) {
    return spec(steps, timeout, BenchConfig.Shape.LINEAR);
  }

  static WorkflowSpec spec(int steps, String timeout, BenchConfig.Shape shape) {
    return spec(BenchConfig.defaults().withSteps(steps).withShape(shape).withItems(
        shape == BenchConfig.Shape.MAP ? steps : 0), timeout);
  }

  static WorkflowSpec spec(BenchConfig config) {
    return spec(config, config.stepTimeout());
  }

  /**
   * The benchmark's Workflow: {@code steps} tasks (task {@code i} on {@link #service} with {@link #command} of its
   * {@link #commandIndex}), arranged as the shape says; steps/s counts these tasks in every shape, so shapes compare
   * directly. A {@link BenchConfig.Shape#MAP} is one step, {@code map: {items: "input.items", steps: [one task]}}, over
   * an input holding {@code steps} items: its {@code steps} iterations are the tasks ({@code s0[0]} to
   * {@code s0[steps - 1]}).
   */
  private static WorkflowSpec spec(BenchConfig config, String timeout) {
    int steps = config.steps();
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity(ENTITY);
    List<StepSpec> tasks = tasks("s", steps, timeout, config.commands());
    switch (config.shape()) {
      case LINEAR -> spec.setSteps(tasks);
      case PARALLEL -> {
        StepSpec fan = new StepSpec();
        fan.setName("fan");
        List<BranchSpec> branches = new ArrayList<>();
        for (StepSpec task : tasks) {
          BranchSpec branch = new BranchSpec();
          branch.setSteps(List.of(task));
          branches.add(branch);
        }
        fan.setParallel(branches);
        spec.setSteps(List.of(fan));
      }
      case CHOICE -> {
        StepSpec route = new StepSpec();
        route.setName("route");
        CaseSpec always = new CaseSpec();
        always.setWhen("has(input.n)"); // every instance input has n: the case runs, the choice is evaluated
        always.setSteps(tasks);
        route.setChoice(List.of(always));
        route.setOtherwise(tasks("o", steps, timeout, config.commands()));
        spec.setSteps(List.of(route));
      }
      case MAP -> {
        if (config.items() != steps) {
          throw new IllegalArgumentException("a map of " + steps + " tasks needs an input of " + steps
              + " items, not " + config.items());
        }
        StepSpec each = new StepSpec();
        each.setName("each");
        MapSpec map = new MapSpec("input.items", tasks("s", 1, timeout, config.commands()));
        if (config.mapConcurrency() > 0) {
          map.setMaxConcurrency(config.mapConcurrency());
        }
        each.setMap(map);
        spec.setSteps(List.of(each));
      }
    }
    return spec;
  }

  private static List<StepSpec> tasks(String prefix, int steps, String timeout, int commands) {
    List<StepSpec> list = new ArrayList<>();
    for (int i = 0; i < steps; i++) {
      int c = commandIndex(i, commands);
      StepSpec s = new StepSpec(prefix + i, service(c), command(c));
      s.setTimeout(timeout); // real steps have one: every dispatch then also maintains the deadline index
      list.add(s);
    }
    return list;
  }

  /** Service → its commands, in step order. */
  Map<String, List<String>> commandsByService() {
    return commandsByService(spec);
  }

  /** Service → the commands of the spec's tasks (nested ones included), each once, in step order. */
  static Map<String, List<String>> commandsByService(WorkflowSpec spec) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (StepSpec s : WorkflowSpecs.allSteps(spec)) {
      if (s.getService() != null && s.getCommand() != null) {
        List<String> commands = m.computeIfAbsent(s.getService(), k -> new ArrayList<>());
        if (!commands.contains(s.getCommand())) {
          commands.add(s.getCommand());
        }
      }
    }
    return m;
  }

  ServiceModel serviceModel(String service) {
    List<ServiceModel.Command> commands = commandsByService().get(service).stream()
        .map(c -> new ServiceModel.Command(c, RetryStaircase.NONE)).toList();
    return new ServiceModel(service, config.queueType(), commands, List.of());
  }

  /** The runtime as {@code baton dev} runs it, on this vhost and database, with the benchmark's knobs. */
  RuntimeSettings runtimeSettings() {
    RuntimeSettings.Builder b = RuntimeSettings.localDefaults().toBuilder()
        .databaseUrl(stack.database().jdbcUrl())
        .databaseUsername(stack.database().user())
        .databasePassword(stack.database().password())
        .createDatabase(false)
        .amqpUri(stack.vhost().amqpUri(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD))
        .httpHost("127.0.0.1")
        .httpPort(0)
        .consumerRetryInterval(Duration.ofMillis(500))
        // As the runtime reads it: BATON_OUTBOX_FAST_PATH=false measures the relay without its fast path.
        .outboxFastPath(SettingsReader.of(System.getenv()).bool("BATON_OUTBOX_FAST_PATH",
            RuntimeSettings.localDefaults().outboxFastPath()));
    if (config.threads() > 0) {
      b.consumerThreads(config.threads());
    }
    if (config.prefetch() > 0) {
      b.prefetch(config.prefetch());
    }
    if (config.outboxBatch() > 0) {
      b.outboxBatchSize(config.outboxBatch());
    }
    if (config.eventBatch() > 0) {
      b.eventBatchSize(config.eventBatch());
    }
    if (config.poolSize() > 0) {
      b.databasePoolSize(config.poolSize());
    }
    return b.build();
  }

  BatonRuntime startRuntime(RuntimeSettings settings) {
    appliedCounters = List.of();
    runtime = BatonRuntime.start(settings, stack.client());
    return runtime;
  }

  /** Waits until the runtime consumes the orchestrator queue (it learns the Workflow from its watch). */
  void awaitConsuming(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    String queue = dev.baton.contract.Names.orchestratorQueue(WORKFLOW);
    while (System.nanoTime() < deadline) {
      try (Channel ch = stack.amqp().createChannel()) {
        if (ch.consumerCount(queue) > 0) {
          return;
        }
      } catch (Exception e) {
        // try again
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("the runtime did not start consuming " + queue + " within " + within);
  }

  /** One no-op worker per service (worker SDK, default in-memory idempotency), consuming every command queue. */
  void startWorkers() {
    for (Map.Entry<String, List<String>> e : commandsByService().entrySet()) {
      BatonWorker.Builder b = BatonWorker.builder()
          .environment(new WorkerEnvironment(serviceModel(e.getKey()), config.workerPrefetch()))
          .uri(stack.vhost().amqpUri(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD))
          .connectionName("bench-worker-" + e.getKey())
          .concurrency(config.workerChannels());
      for (String command : e.getValue()) {
        b.command(command, cmd -> {
          Map<String, java.time.Instant> seen = commandsSeen;
          if (seen != null) {
            seen.put(cmd.instanceId() + "/" + cmd.step() + "/" + cmd.attempt(), java.time.Instant.now());
          }
          return CommandResult.success(null);
        });
      }
      BatonWorker w = b.build();
      workers.add(w);
      w.start();
    }
  }

  void stopWorkers() {
    for (BatonWorker w : workers) {
      w.close();
    }
    workers.clear();
  }

  java.sql.Connection connect() throws SQLException {
    return stack.database().connect();
  }

  long count(String sql) throws SQLException {
    try (java.sql.Connection c = connect(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : 0;
    }
  }

  /** Step results applied so far (the runtime's own counter: reading it costs the database nothing). */
  double eventsApplied() {
    List<io.micrometer.core.instrument.Counter> cs = appliedCounters;
    if (cs.isEmpty()) {
      cs = List.copyOf(runtime.metrics().registry().find("baton.events.processed").counters());
      appliedCounters = cs; // the benchmark's events all succeed: one counter, found once it exists
    }
    double sum = 0;
    for (io.micrometer.core.instrument.Counter c : cs) {
      sum += c.count();
    }
    return sum;
  }

  private volatile List<io.micrometer.core.instrument.Counter> appliedCounters = List.of();

  @Override
  public void close() {
    try {
      stopWorkers();
      if (runtime != null) {
        runtime.close();
        runtime = null;
      }
    } finally {
      stack.close();
    }
  }
}
