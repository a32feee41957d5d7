package dev.baton.bench;

import dev.baton.api.v1alpha1.Bounds;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.contract.topology.QueueType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code baton bench}: the end-to-end benchmark. Prints the Markdown report and writes it with its JSON. */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "End-to-end benchmark of the Baton runtime on the real RabbitMQ and PostgreSQL (fresh vhost and database,",
        "removed afterwards): N-step workflows with no-op workers (worker SDK) in this JVM, instances started through",
        "the HTTP API, durable queues, confirms, manual acks, synchronous commit. The same run measures a ceiling:",
        "the same work per step written straight on amqp-client and JDBC, and prints Baton / ceiling.",
        "Writes .baton/bench/report.md and report.json. Not a test: it asserts nothing."},
    footer = {"", "Examples:", "  baton bench                          # defaults: a few minutes",
        "  baton bench --instances 20000 --duration 60s",
        "  baton bench --sweep threads,prefetch --instances 3000",
        "  baton bench --phases none --sweep shape  # shapes, and a map of 100 items beside 100 tasks in a line",
        "  baton bench --sweep growth             # 1 million finished instances, and the retention purge",
        "  baton bench --sweep operator           # 200 WorkerServices + 100 Workflows applied at once"})
public final class BenchMain implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(BenchMain.class);
  /** Instances run before measuring, so that the database has statistics (see {@link BatonRun#warmUp}). */
  static int WARM_UP = 3000;
  /** At most this long, the closed loop runs after the warm-up until the JIT settles (see {@link BatonRun#settleJit}). */
  static int JIT_SETTLE = 180;

  @Option(names = "--steps", description = "Steps per workflow (default ${DEFAULT-VALUE}).", defaultValue = "3")
  int steps;

  @Option(names = "--shape", description = "How the --steps tasks are arranged: linear (one after the other),"
      + " parallel (one parallel group, a task per branch; at least 2), choice (a choice whose first case runs"
      + " them; its otherwise holds as many more) or map (one map over an input list of --steps items, one task per"
      + " iteration, --map-concurrency at once) (default ${DEFAULT-VALUE}).", defaultValue = "linear")
  String shape;

  @Option(names = "--instances", description = "Instances preloaded for the saturation drain and the ceiling "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "5000")
  int instances;

  @Option(names = "--duration", description = "Length of the sustained and fixed-rate windows, e.g. 20s, 2m "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "20s")
  String duration;

  @Option(names = "--warmup", description = "Warm-up before the sustained window (default ${DEFAULT-VALUE}).",
      defaultValue = "5s")
  String warmup;

  @Option(names = "--warm-up", description = "Instances run (then ANALYZE) before measuring, as a database in use "
      + "has statistics and a JVM in use has compiled its hot paths; 0 measures a brand-new database (default "
      + "${DEFAULT-VALUE}).", defaultValue = "3000")
  int warmUp;

  @Option(names = "--jit-settle", description = "After the warm-up, run the closed loop until the JIT compilers use "
      + "under 0.05 of a core over 5 s, for at most this long (0s: not at all), as a JVM in use has compiled its hot "
      + "paths; the ceilings run after it, on the same warm JVM (default ${DEFAULT-VALUE}).", defaultValue = "180s")
  String jitSettle;

  @Option(names = "--rate", description = "Fixed start rate in workflows/s for the latency run (default: half of "
      + "the sustained saturation).", defaultValue = "0")
  double rate;

  @Option(names = "--light-rate", description = "Start rate in workflows/s of the light-load point, where Baton and "
      + "the raw pipeline are measured at the same rate (default ${DEFAULT-VALUE}).", defaultValue = "150")
  double lightRate;

  @Option(names = "--threads", description = "Runtime consumer threads (default: the runtime's).", defaultValue = "0")
  int threads;

  @Option(names = "--prefetch", description = "Runtime prefetch per consumer (default: the runtime's).",
      defaultValue = "0")
  int prefetch;

  @Option(names = "--outbox-batch", description = "Outbox relay batch size (default: the runtime's).",
      defaultValue = "0")
  int outboxBatch;

  @Option(names = "--event-batch", description = "Events per step-loop transaction (default: the runtime's).",
      defaultValue = "0")
  int eventBatch;

  @Option(names = "--pool-size", description = "Database connections (default: the runtime's).", defaultValue = "0")
  int poolSize;

  @Option(names = "--queue-type", description = "classic or quorum (default ${DEFAULT-VALUE}).",
      defaultValue = "classic")
  String queueType;

  @Option(names = "--payload-bytes", description = "Size of each instance's input (default ${DEFAULT-VALUE}).",
      defaultValue = "300")
  int payloadBytes;

  @Option(names = "--step-timeout", description = "Every step's timeout, or none (default ${DEFAULT-VALUE}: real "
      + "steps have one, and each dispatch then also maintains the deadline index).", defaultValue = "5m")
  String stepTimeout;

  @Option(names = "--worker-prefetch", description = "Prefetch of each worker channel (default ${DEFAULT-VALUE}).",
      defaultValue = "50")
  int workerPrefetch;

  @Option(names = "--worker-channels", description = "Worker channels per command queue (default ${DEFAULT-VALUE}).",
      defaultValue = "1")
  int workerChannels;

  @Option(names = "--http-clients", description = "Concurrent HTTP clients starting instances "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "32")
  int httpClients;

  @Option(names = "--batch-size", description = "Starts per request of the batch start phase, at most 1000 "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "1000")
  int batchSize;

  @Option(names = "--batch-clients", description = "Concurrent clients of the batch start phase "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "2")
  int batchClients;

  @Option(names = "--in-flight", description = "Instances kept running in the sustained closed loop "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "400")
  int inFlight;

  @Option(names = "--phases", split = ",", description = "What the main run measures: ceiling, drain, batch, "
      + "sustained, fixed, light (default: all; 'none' with --sweep runs only the sweeps). ceiling with sustained also "
      + "runs the ceiling with starts, ceiling with fixed the raw pipeline at the half rate; light always measures "
      + "the raw pipeline beside Baton.")
  List<String> phases;

  @Option(names = "--preload", description = "Only the preload + drain phase (and the ceiling): the step loop at "
      + "saturation.")
  boolean preloadOnly;

  @Option(names = "--sweep", split = ",", description = "Sweeps to run after the main run: limit (the drain with a "
      + "maxInFlight on every command that it never reaches, against none), threads, prefetch, "
      + "outbox-batch, queue-type, payload, steps, shape, growth, operator, or all; map: only the shape sweep's map "
      + "beside its line.")
  List<String> sweeps = new ArrayList<>();

  @Option(names = "--map-items", description = "The shape sweep's map: a map of this many items (one task per "
      + "iteration) beside as many tasks in a line, at most " + Bounds.STEPS + "; 0 leaves it out "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "100")
  int mapItems;

  @Option(names = "--map-concurrency", description = "maxConcurrency of the map (the shape sweep's, and --shape map); "
      + "0 leaves it unset: every iteration at once (default ${DEFAULT-VALUE}).", defaultValue = "0")
  int mapConcurrency;

  @Option(names = "--growth-rows", description = "Finished instances bulk-loaded by the growth sweep "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "1000000")
  int growthRows;

  @Option(names = "--operator-services", description = "WorkerServices of the operator sweep "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "200")
  int operatorServices;

  @Option(names = "--operator-workflows", description = "Workflows of the operator sweep (default ${DEFAULT-VALUE}).",
      defaultValue = "100")
  int operatorWorkflows;

  @Option(names = "--operator-resync", description = "Operator resync interval in the operator sweep "
      + "(default ${DEFAULT-VALUE}).", defaultValue = "30s")
  String operatorResync;

  @Option(names = "--jfr", description = "Record a JFR profile of the drain into this file (and of the preload's "
      + "starts and the sustained loop beside it, FILE.starts.jfr and FILE.sustained.jfr) and print the hottest frames "
      + "and threads in the report.")
  Path jfr;

  @Option(names = "--out", description = "Report folder (default: .baton/bench under the repository, or the "
      + "current folder).")
  Path out;

  public static void main(String[] args) {
    System.exit(run(args));
  }

  /** Runs the command; the exit code. */
  public static int run(String... args) {
    return new CommandLine(new BenchMain()).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
  }

  @Override
  public Integer call() throws Exception {
    BenchConfig config = config();
    WARM_UP = Math.max(0, warmUp);
    JIT_SETTLE = seconds(jitSettle, "--jit-settle");
    Set<String> run = phases();
    Set<String> sweepNames = sweepNames();
    Report report = new Report(config);
    if (!report.machineBefore.quiet()) {
      LOG.warn("the machine is not quiet (load {}, {} other Java/Maven processes): absolute figures will be low; the "
          + "ratio to the ceiling still compares", String.format(Locale.ROOT, "%.2f",
          report.machineBefore.loadAverage()), report.machineBefore.otherJavaProcesses());
    }
    boolean withStarts = run.contains("ceiling") && run.contains("sustained");
    Callable<Void> ceilingsBefore = () -> {
      if (run.contains("ceiling")) {
        Ceiling.Result c = ceiling(config, config.instances());
        report.ceilingRuns.add(c.stepsPerSecond());
        report.ceilingUsage = c.usage();
      }
      if (withStarts) {
        report.ceilingWithStarts.add(ceilingWithStarts(config));
      }
      return null;
    };
    if (run.contains("drain") || run.contains("batch") || run.contains("sustained") || run.contains("fixed")
        || run.contains("light")) {
      mainRun(config, run, report, ceilingsBefore); // the ceilings run once the JVM is warm, as Baton's phases do
    } else {
      ceilingsBefore.call();
    }
    // Once more after Baton's runs: the ratios compare Baton with the mean of a ceiling measured before and after
    // it, so that a machine getting busier or quieter meanwhile moves both sides alike.
    if (withStarts) {
      report.ceilingWithStarts.add(ceilingWithStarts(config));
    }
    if (run.contains("ceiling") && run.contains("drain")) {
      report.ceilingRuns.add(ceiling(config, config.instances()).stepsPerSecond());
    }
    if (!report.ceilingRuns.isEmpty()) {
      report.ceiling = report.ceilingRuns.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }
    for (String sweep : sweepNames) {
      Sweeps.run(sweep, config, this, report);
    }
    Path dir = out != null ? out : defaultOut();
    report.write(dir);
    System.out.println(report.markdown());
    System.out.println("Written to " + dir.resolve("report.md") + " and " + dir.resolve("report.json"));
    return 0;
  }

  /** @param beforeMeasuring what runs once Baton's stack is warm, before its first measurement (the ceilings) */
  private void mainRun(BenchConfig config, Set<String> run, Report report, Callable<Void> beforeMeasuring)
      throws Exception {
    try (Stack stack = Stack.create(config, "bench-main"); BatonRun baton = new BatonRun(stack)) {
      baton.startRuntime();
      baton.warmUp(WARM_UP);
      report.jitSettleSeconds = baton.settleJit(JIT_SETTLE);
      beforeMeasuring.call(); // Baton's workers are stopped, its runtime idle

      // Each start phase runs twice and the second round is reported: the closed loop that settles the JIT starts
      // instances with the workers running and never calls the batch endpoint; in a first round the compilers took
      // 0.2 of a core during the single starts and 0.4 during the batch starts (0.09 and 0.24 in the second).
      if (run.contains("drain")) {
        BatonRun.Drain first = baton.drain(config.instances());
        LOG.info("first round, not reported: {} starts/s (compilers {} cores), {} steps/s (compilers {} cores)",
            BatonRun.fmt(first.startsPerSecond()), BatonRun.fmt(first.startUsage().jitCores()),
            BatonRun.fmt(first.stepsPerSecond()),
            BatonRun.fmt(first.usage().jitCores()));
        baton.jfr = jfr;
        report.drain = baton.drain(config.instances());
      } else {
        baton.jfr = jfr;
        stack.startWorkers();
      }
      if (run.contains("batch")) {
        BatonRun.BatchStarts first = baton.batchStarts(config.instances());
        LOG.info("first round, not reported: {} batch starts/s (compilers {} cores)",
            BatonRun.fmt(first.startsPerSecond()),
            BatonRun.fmt(first.usage().jitCores()));
        report.batch = baton.batchStarts(config.instances());
      }
      if (run.contains("sustained")) {
        report.sustained = baton.sustained(config.inFlight(), config.warmupSeconds(), config.durationSeconds());
      }
      if (!baton.profiles.isEmpty()) {
        report.profile = String.join("\n", baton.profiles);
      }
      if (run.contains("fixed")) {
        double r = config.rate() > 0 ? config.rate()
            : report.sustained != null ? report.sustained.workflowsPerSecond() / 2
            : report.drain != null ? report.drain.stepsPerSecond() / config.steps() / 2 : 50;
        report.half = atFixedRate(config, baton, r, run.contains("ceiling"), RatePoint::half);
      }
      if (run.contains("light")) {
        // The point is Baton beside the raw pipeline: the latency this machine allows at that load.
        report.light = atFixedRate(config, baton, lightRate, true, RatePoint::light);
      }
      report.startFailures = baton.failures();
    }
  }

  /** The ceiling on its own vhost and database. */
  static Ceiling.Result ceiling(BenchConfig config, int instances) throws Exception {
    try (Ceiling c = new Ceiling(config)) {
      return c.run(instances);
    }
  }

  /**
   * Baton at {@code rate} for {@code --duration}, then, {@code withCeiling}, the raw pipeline at the same rate: one
   * place for every fixed-rate point.
   */
  private static RatePoint atFixedRate(BenchConfig config, BatonRun baton, double rate, boolean withCeiling,
      java.util.function.BiFunction<BatonRun.FixedRate, Ceiling.FixedRate, RatePoint> point) throws Exception {
    BatonRun.FixedRate b = baton.fixedRate(rate, config.durationSeconds());
    return point.apply(b, withCeiling ? ceilingFixedRate(config, rate) : null);
  }

  /** The ceiling's open loop at Baton's fixed rate, on its own vhost and database, as long as Baton's. */
  static Ceiling.FixedRate ceilingFixedRate(BenchConfig config, double rate) throws Exception {
    try (Ceiling c = new Ceiling(config)) {
      return c.runFixedRate(rate, config.warmupSeconds(), config.durationSeconds());
    }
  }

  /** The ceiling's closed loop with starts, on its own vhost and database, as long as Baton's sustained run. */
  static Ceiling.WithStarts ceilingWithStarts(BenchConfig config) throws Exception {
    try (Ceiling c = new Ceiling(config)) {
      return c.runWithStarts(config.inFlight(), config.warmupSeconds(), config.durationSeconds());
    }
  }

  BenchConfig config() {
    QueueType type = switch (queueType.toLowerCase(Locale.ROOT)) {
      case "classic" -> QueueType.CLASSIC;
      case "quorum" -> QueueType.QUORUM;
      default -> throw new CommandLine.ParameterException(new CommandLine(this),
          "--queue-type must be classic or quorum, not " + queueType);
    };
    if (steps < 1 || instances < 1 || httpClients < 1 || inFlight < 1) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--steps, --instances, --http-clients and --in-flight must be at least 1");
    }
    if (!(lightRate > 0)) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--light-rate must be above 0");
    }
    BenchConfig.Shape arrangement = switch (shape.toLowerCase(Locale.ROOT)) {
      case "linear" -> BenchConfig.Shape.LINEAR;
      case "parallel" -> BenchConfig.Shape.PARALLEL;
      case "choice" -> BenchConfig.Shape.CHOICE;
      case "map" -> BenchConfig.Shape.MAP;
      default -> throw new CommandLine.ParameterException(new CommandLine(this),
          "--shape must be linear, parallel, choice or map, not " + shape);
    };
    if (mapItems < 0 || mapItems > Bounds.STEPS || mapConcurrency < 0 || mapConcurrency > Bounds.MAP_ITEMS) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--map-items must be 0 (off) to "
          + Bounds.STEPS + " (the line beside the map has as many top-level steps), --map-concurrency 0 to "
          + Bounds.MAP_ITEMS);
    }
    if (arrangement == BenchConfig.Shape.MAP && steps > Bounds.MAP_ITEMS) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--shape map takes at most " + Bounds.MAP_ITEMS + " items (--steps)");
    }
    if (arrangement == BenchConfig.Shape.PARALLEL && steps < 2) {
      throw new CommandLine.ParameterException(new CommandLine(this),
          "--shape parallel needs --steps 2 or more (a parallel group has at least two branches)");
    }
    return new BenchConfig(steps, instances, seconds(duration, "--duration"), seconds(warmup, "--warmup"), rate,
        threads, prefetch, outboxBatch, eventBatch, poolSize, type, payloadBytes, workerPrefetch, workerChannels,
        httpClients, inFlight, stepTimeout.equalsIgnoreCase("none") ? null : stepTimeout, arrangement,
        Math.min(1000, Math.max(1, batchSize)), Math.max(1, batchClients),
        0, arrangement == BenchConfig.Shape.MAP ? steps : 0, mapConcurrency, 0);
  }

  private Set<String> phases() {
    if (preloadOnly) {
      return Set.of("ceiling", "drain");
    }
    if (phases == null || phases.isEmpty()) {
      return sweeps.isEmpty() ? Set.of("ceiling", "drain", "batch", "sustained", "fixed", "light") : Set.of();
    }
    Set<String> s = new LinkedHashSet<>();
    for (String p : phases) {
      String v = p.trim().toLowerCase(Locale.ROOT);
      if (!Set.of("ceiling", "drain", "batch", "sustained", "fixed", "light", "none").contains(v)) {
        throw new CommandLine.ParameterException(new CommandLine(this), "unknown phase " + p);
      }
      s.add(v);
    }
    return s;
  }

  private Set<String> sweepNames() {
    Set<String> s = new LinkedHashSet<>();
    for (String name : sweeps) {
      String v = name.trim().toLowerCase(Locale.ROOT);
      if (v.equals("all")) {
        s.addAll(Sweeps.ALL);
      } else if (Sweeps.ALL.contains(v) || Sweeps.ON_REQUEST.contains(v)) {
        s.add(v);
      } else {
        throw new CommandLine.ParameterException(new CommandLine(this), "unknown sweep " + name + " (one of "
            + String.join(", ", Sweeps.ALL) + ", " + String.join(", ", Sweeps.ON_REQUEST) + ", all)");
      }
    }
    return s;
  }

  static int seconds(String text, String option) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.endsWith("ms")) {
        return Math.max(1, Integer.parseInt(t.substring(0, t.length() - 2)) / 1000);
      }
      if (t.endsWith("s")) {
        return Integer.parseInt(t.substring(0, t.length() - 1));
      }
      if (t.endsWith("m")) {
        return 60 * Integer.parseInt(t.substring(0, t.length() - 1));
      }
      return Integer.parseInt(t);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + ": not a duration such as 20s or 2m: " + text);
    }
  }

  private static Path defaultOut() {
    String home = SettingsReader.read(System.getenv(), r -> r.string("BATON_HOME", null));
    Path root = home != null ? Path.of(home) : Path.of("").toAbsolutePath();
    return root.resolve(".baton").resolve("bench");
  }
}
