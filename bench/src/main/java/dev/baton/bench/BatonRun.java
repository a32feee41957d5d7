package dev.baton.bench;

import dev.baton.api.json.Json;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.BatchStartResponse;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Baton measurements on one {@link Stack}: instances are started through the HTTP API (the product path), steps
 * run through the real runtime and SDK workers, and figures come from the runtime's counter (progress) and its
 * database rows (latency).
 */
final class BatonRun implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BatonRun.class);

  /** Preloaded instances drained by the step loop at saturation; the preload itself gives the start rate. */
  record Drain(int instances, double startsPerSecond, double relaySeconds, double drainSeconds,
      double stepsPerSecond, Percentiles stepLatency, Resources.Usage usage, Resources.Usage startUsage) {}

  /** Instances started through the batch endpoint with the workers stopped, then drained (not measured). */
  record BatchStarts(int instances, int batchSize, int clients, double seconds, double startsPerSecond,
      Resources.Usage usage) {}

  /** A closed loop: a fixed number of instances kept running, each finished one replaced by a new HTTP start. */
  record Sustained(int inFlight, double seconds, double stepsPerSecond, double workflowsPerSecond,
      double startsPerSecond, Percentiles stepLatency, Percentiles endToEnd, Resources.Usage usage) {}

  /** An open loop: starts at a fixed rate whatever the system does. */
  record FixedRate(double targetWorkflowsPerSecond, double seconds, double startsPerSecond,
      double stepsPerSecond, double maxStartLagMs, Percentiles stepLatency, Percentiles endToEnd,
      Resources.Usage usage, List<Hops.Hop> hops) {}

  private final Stack stack;
  private final BenchConfig config;
  /** The load generator of the runtime started last (its connections go with it). */
  private LoadGenerator load;
  /** Start requests that failed, over every runtime started. */
  private long failuresBefore;
  private String batchPath;
  /** When set, the preload and the drain are each recorded with JFR (two files) and summarised. */
  java.nio.file.Path jfr;
  final List<String> profiles = new ArrayList<>();

  BatonRun(Stack stack) {
    this.stack = stack;
    this.config = stack.config;
  }

  /** Starts the runtime and waits until it consumes the workflow's queue. */
  void startRuntime() throws InterruptedException {
    startRuntime(stack.runtimeSettings());
  }

  void startRuntime(dev.baton.runtime.app.RuntimeSettings settings) throws InterruptedException {
    close(); // connections to a runtime started before
    stack.startRuntime(settings);
    load = new LoadGenerator(URI.create("http://127.0.0.1:" + stack.runtime.httpPort()
        + ApiPaths.instances(Stack.NS, Stack.WORKFLOW)), config);
    batchPath = ApiPaths.batch(Stack.NS, Stack.WORKFLOW);
    stack.awaitConsuming(Duration.ofSeconds(30));
    try {
      stack.awaitLimits(Duration.ofSeconds(30));
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("cannot read the runtime's limits", e);
    }
  }

  /**
   * Brings a fresh database where a running one is: some instances through every step, then {@code ANALYZE}, as
   * autovacuum does within a minute of the tables filling. Without it every connection keeps the plans it made
   * while the tables were empty, where a sequential scan is the cheapest plan for a lookup by key (PostgreSQL
   * caches the generic plan of a prepared statement, and foreign-key checks' plans, per connection, until the
   * statistics change), and the measurement would show the first minute of a new database instead of the steady
   * state.
   */
  void warmUp(int instances) throws Exception {
    if (instances <= 0) {
      return;
    }
    double applied0 = stack.eventsApplied();
    ExecutorService pool = Executors.newFixedThreadPool(config.httpClients());
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      futures.add(pool.submit(this::start));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    stack.startWorkers();
    awaitApplied(applied0 + (double) instances * config.steps(), Duration.ofMinutes(5));
    stack.stopWorkers();
    analyze();
  }

  private void analyze() throws SQLException {
    try (Connection c = stack.connect(); java.sql.Statement s = c.createStatement()) {
      s.execute("ANALYZE");
    }
  }

  /** One start through the HTTP API; true when the runtime created the instance. */
  boolean start() {
    return load.start();
  }

  /** One request to the batch endpoint with {@code size} new business keys; how many it created. */
  int startBatch(int size) {
    StringBuilder body = new StringBuilder("{\"instances\":[");
    for (int i = 0; i < size; i++) {
      body.append(i == 0 ? "" : ",").append(load.startRequest());
    }
    body.append("]}");
    String answer = load.post(batchPath, body.toString(), 200);
    if (answer == null) {
      return 0;
    }
    try {
      return (int) Json.MAPPER.readValue(answer, BatchStartResponse.class).results().stream()
          .filter(BatchStartResponse.Result::created).count();
    } catch (java.io.IOException e) {
      throw new IllegalStateException("the batch endpoint's answer: " + e, e);
    }
  }

  /** Closes the load generator's connections. */
  @Override
  public void close() {
    if (load != null) {
      failuresBefore += load.failures();
      load.close();
      load = null;
    }
  }

  /**
   * Starts {@code n} instances through the batch endpoint ({@link BenchConfig#batchClients} clients, each posting
   * {@link BenchConfig#batchSize} starts per request) with the workers stopped: the start rate alone. Then the workers
   * drain them (not measured) and are left running.
   */
  BatchStarts batchStarts(int n) throws Exception {
    stack.stopWorkers();
    double applied0 = stack.eventsApplied();
    // The API takes bodies up to 1 MiB: bigger inputs go in smaller batches.
    int size = Math.max(1, Math.min(config.batchSize(), 900_000 / (config.payloadBytes() + 80)));
    int clients = Math.max(1, config.batchClients());
    AtomicLong remaining = new AtomicLong(n);
    AtomicLong created = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    Resources resources = Resources.start();
    long t0 = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      futures.add(pool.submit(() -> {
        long left;
        while ((left = remaining.getAndAdd(-size)) > 0) {
          created.addAndGet(startBatch((int) Math.min(size, left)));
        }
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    double seconds = (System.nanoTime() - t0) / 1e9;
    Resources.Usage usage = resources.stop();
    LOG.info("batch starts: {} instances in {} s ({} starts/s, {} per request, {} clients)", created.get(),
        fmt(seconds), fmt(created.get() / seconds), size, clients);
    stack.startWorkers();
    awaitApplied(applied0 + (double) created.get() * config.steps(), Duration.ofMinutes(15));
    return new BatchStarts((int) created.get(), size, clients, seconds, created.get() / seconds, usage);
  }

  /** Start requests that failed or were refused (a batch request counts once). */
  long failures() {
    return failuresBefore + (load == null ? 0 : load.failures());
  }

  /**
   * Starts {@code n} instances with the workers stopped (their commands wait in the queues), then starts the workers
   * and measures the step loop draining them.
   */
  Drain drain(int n) throws Exception {
    stack.stopWorkers();
    double applied0 = stack.eventsApplied();
    Profiler startProfile = jfr == null ? null
        : Profiler.start(jfr.resolveSibling(jfr.getFileName() + ".starts.jfr"));
    Resources startResources = Resources.start();
    long t0 = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(config.httpClients());
    List<Future<?>> futures = new ArrayList<>();
    AtomicLong next = new AtomicLong();
    for (int i = 0; i < config.httpClients(); i++) {
      futures.add(pool.submit(() -> {
        while (next.incrementAndGet() <= n) {
          start();
        }
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    double startSeconds = (System.nanoTime() - t0) / 1e9;
    Resources.Usage startUsage = startResources.stop();
    if (startProfile != null) {
      profiles.add("starts (preload through the HTTP API): " + startProfile.stopAndSummarize(25));
    }
    long t1 = System.nanoTime();
    awaitOutboxEmpty(Duration.ofMinutes(5));
    double relaySeconds = (System.nanoTime() - t1) / 1e9;
    LOG.info("preloaded {} instances in {} s ({} starts/s); outbox drained {} s later", n, fmt(startSeconds),
        fmt(n / startSeconds), fmt(relaySeconds));

    Profiler drainProfile = jfr == null ? null : Profiler.start(jfr);
    Resources resources = Resources.start();
    Instant workersStarted = Instant.now();
    long t2 = System.nanoTime();
    stack.startWorkers();
    double target = applied0 + (double) n * config.steps();
    awaitApplied(target, Duration.ofMinutes(15));
    double seconds = (System.nanoTime() - t2) / 1e9;
    Instant end = Instant.now();
    Resources.Usage usage = resources.stop();
    if (drainProfile != null) {
      profiles.add("drain (step loop, relay, workers): " + drainProfile.stopAndSummarize(25));
    }
    double stepsPerSecond = (double) n * config.steps() / seconds;
    LOG.info("drained {} instances x {} steps in {} s = {} steps/s", n, config.steps(), fmt(seconds),
        fmt(stepsPerSecond));
    Percentiles steps;
    try (Connection c = stack.connect()) {
      // Executions dispatched once the workers ran (the first steps waited for the workers by design).
      steps = Percentiles.steps(c, workersStarted, end.plusSeconds(1));
    }
    return new Drain(n, n / startSeconds, relaySeconds, seconds, stepsPerSecond, steps, usage, startUsage);
  }

  /** Keeps {@code inFlight} instances running for warm-up + duration; measures the window after the warm-up. */
  Sustained sustained(int inFlight, int warmupSeconds, int seconds) throws Exception {
    double baseline = stack.eventsApplied();
    Window w;
    long started;
    try (ClosedLoop loop = closedLoop(inFlight)) {
      Profiler profile = jfr == null ? null
          : Profiler.start(jfr.resolveSibling(jfr.getFileName() + ".sustained.jfr"));
      w = Window.measure(warmupSeconds, seconds, stack::eventsApplied, loop::started);
      loop.close();
      started = loop.started();
      if (profile != null) {
        profiles.add("sustained (closed loop, starts included): " + profile.stopAndSummarize(25));
      }
    }
    awaitApplied(baseline + (double) started * config.steps(), Duration.ofMinutes(5));
    Instant from = w.from();
    Instant to = w.to();
    double stepsPerSecond = w.stepsPerSecond();
    double window = w.seconds();
    long finishedInWindow;
    Percentiles stepLatency;
    Percentiles e2e;
    try (Connection c = stack.connect()) {
      finishedInWindow = finishedBetween(c, from, to);
      stepLatency = Percentiles.steps(c, from, to);
      e2e = Percentiles.endToEnd(c, from, to);
    }
    LOG.info("sustained ({} in flight): {} steps/s, {} workflows/s", inFlight, fmt(stepsPerSecond),
        fmt(finishedInWindow / window));
    return new Sustained(inFlight, window, stepsPerSecond, finishedInWindow / window,
        w.startsPerSecond(), stepLatency, e2e, w.usage());
  }

  /**
   * Runs the sustained closed loop until the JIT compilers have settled: until, over {@link #SETTLE_WINDOW_SECONDS},
   * they used under {@link #SETTLED_JIT_CORES} of a core, or for {@code maxSeconds} at most. A JVM in use has
   * compiled its hot paths; after the instance warm-up alone, C2 still took most of a core here for over a minute,
   * CPU the runtime under test did not get on a 2-core machine, which made the first phases measure the compiler.
   *
   * @return the seconds it took
   */
  double settleJit(int maxSeconds) throws Exception {
    if (maxSeconds <= 0 || Resources.compilerSeconds() < 0 || jitSettled) {
      return 0; // off, not measurable, or done once in this JVM already (the compiled code stays)
    }
    jitSettled = true;
    long t0 = System.nanoTime();
    double baseline = stack.eventsApplied();
    long started;
    double lastJitCores = Double.NaN;
    stack.startWorkers();
    try (ClosedLoop loop = closedLoop(config.inFlight())) {
      while (System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(maxSeconds)) {
        double jit0 = Resources.compilerSeconds();
        long w0 = System.nanoTime();
        Thread.sleep(SETTLE_WINDOW_SECONDS * 1000L);
        lastJitCores = Math.max(0, Resources.compilerSeconds() - jit0) / ((System.nanoTime() - w0) / 1e9);
        if (lastJitCores < SETTLED_JIT_CORES) {
          break;
        }
      }
      loop.close();
      started = loop.started();
    }
    awaitApplied(baseline + (double) started * config.steps(), Duration.ofMinutes(5));
    stack.stopWorkers(); // as the warm-up leaves them
    analyze(); // the tables grew tenfold: their statistics, as autovacuum would take them (else the runtime's own
    // FreshStatistics ANALYZEs them during the first measurement, seconds of PostgreSQL's CPU)
    double seconds = (System.nanoTime() - t0) / 1e9;
    LOG.info("JIT settled after {} s of the closed loop ({} instances; compilers at {} cores in the last {} s)",
        fmt(seconds), started, String.format(java.util.Locale.ROOT, "%.2f", lastJitCores), SETTLE_WINDOW_SECONDS);
    return seconds;
  }

  private static volatile boolean jitSettled;
  static final int SETTLE_WINDOW_SECONDS = 5;
  static final double SETTLED_JIT_CORES = 0.05;

  /** {@code inFlight} instances kept running, each finished one (by the runtime's applied-events counter) replaced. */
  private ClosedLoop closedLoop(int inFlight) {
    double baseline = stack.eventsApplied();
    int steps = config.steps();
    return load.closedLoop(inFlight, () -> (stack.eventsApplied() - baseline) / steps);
  }

  /** Starts instances at {@code rate} per second for {@code seconds}, then waits for them to finish. */
  FixedRate fixedRate(double rate, int seconds) throws Exception {
    double baseline = stack.eventsApplied();
    stack.commandsSeen = new java.util.concurrent.ConcurrentHashMap<>();
    Map<String, Hops.Delta> timers0 = Hops.read(stack.runtime.metrics().registry());
    OpenLoop loop = load.openLoop(rate, 0, seconds, stack::eventsApplied);
    awaitApplied(baseline + (double) loop.started() * config.steps(), Duration.ofMinutes(5));
    Map<String, Hops.Delta> timers = Hops.between(timers0, Hops.read(stack.runtime.metrics().registry()));
    Map<String, Instant> seen = stack.commandsSeen;
    stack.commandsSeen = null;
    Percentiles stepLatency;
    Percentiles e2e;
    List<Hops.Step> hopSteps;
    try (Connection c = stack.connect()) {
      stepLatency = Percentiles.steps(c, loop.from(), loop.to());
      e2e = Percentiles.endToEnd(c, loop.from(), loop.to());
      hopSteps = hopSteps(c, loop.from(), loop.to(), seen);
    }
    LOG.info("fixed rate {} workflows/s: e2e p50 {} ms p99 {} ms", fmt(rate), fmt(e2e.p50()), fmt(e2e.p99()));
    return new FixedRate(rate, loop.seconds(), loop.startsPerSecond(), loop.stepsPerSecond(), loop.maxStartLagMs(),
        stepLatency, e2e, loop.usage(), Hops.breakdown(timers, hopSteps));
  }

  /** Task attempts dispatched in [from, to) that a worker was seen receiving: their times by one clock. */
  private static List<Hops.Step> hopSteps(Connection c, Instant from, Instant to, Map<String, Instant> seen)
      throws SQLException {
    List<Hops.Step> steps = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT instance_id, name, attempt, started_at, finished_at"
        + " FROM instance_step WHERE kind = 'task' AND started_at >= ? AND started_at < ? AND finished_at IS NOT NULL")) {
      ps.setObject(1, OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
      ps.setObject(2, OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Instant worker = seen.get(rs.getString(1) + "/" + rs.getString(2) + "/" + rs.getInt(3));
          if (worker == null) {
            continue;
          }
          Instant started = rs.getObject(4, OffsetDateTime.class).toInstant();
          Instant finished = rs.getObject(5, OffsetDateTime.class).toInstant();
          steps.add(new Hops.Step(Duration.between(started, worker).toNanos() / 1e6,
              Duration.between(started, finished).toNanos() / 1e6));
        }
      }
    }
    return steps;
  }

  private static long finishedBetween(Connection c, Instant from, Instant to) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT count(*) FROM workflow_instance WHERE finished_at >= ? AND finished_at < ?")) {
      ps.setObject(1, OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
      ps.setObject(2, OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  void awaitApplied(double target, Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (stack.eventsApplied() < target) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("stalled: " + stack.eventsApplied() + " of " + target + " events applied");
      }
      Thread.sleep(5);
    }
  }

  private void awaitOutboxEmpty(Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (stack.count("SELECT count(*) FROM outbox") > 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the outbox did not drain within " + within);
      }
      Thread.sleep(50);
    }
  }

  static String fmt(double v) {
    return String.format("%.1f", v);
  }
}
