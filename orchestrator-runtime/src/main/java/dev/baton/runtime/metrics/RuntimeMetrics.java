package dev.baton.runtime.metrics;

import com.rabbitmq.client.MetricsCollector;
import com.rabbitmq.client.impl.MicrometerMetricsCollector;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import dev.baton.contract.EventResult;
import dev.baton.runtime.store.InstanceStore.StatusCount;
import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.RunningSteps;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.http.Outcome;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Every meter of the runtime, in Prometheus format at {@code /metrics}. Meters of the hot path are looked up once per
 * tag set and kept, so counting an event is a map read and an add.
 *
 * <p>A Workflow's namespace is the label {@code workflow_namespace}, never {@code namespace}: Prometheus gives every
 * scraped series the scrape target's {@code namespace} (the runtime pod's), which would overwrite it. Every meter that
 * names a workflow names its namespace too, so that same-named Workflows of two namespaces stay apart.
 *
 * <p>Beside Baton's own meters: Micrometer's binders for the JVM and the process ({@link ProcessMeters}), the
 * connection pool's ({@link #connectionPool()}), the broker client's ({@link #brokerClient()}) and the HTTP server's
 * requests ({@link #httpRequest}).
 */
public final class RuntimeMetrics {

  /** The label of a Workflow's namespace (see the class comment for why it is not {@code namespace}). */
  public static final String WORKFLOW_NAMESPACE = "workflow_namespace";

  /** The buckets of {@link #httpRequest}: enough for a percentile per route, far fewer than a full histogram's. */
  private static final Duration[] HTTP_BUCKETS = Stream.of(10, 25, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000)
      .map(Duration::ofMillis).toArray(Duration[]::new);

  private volatile List<StatusCount> lastCounts = List.of();

  /** Why an event was parked, as a low-cardinality tag. */
  public enum ParkReason {
    MALFORMED, UNKNOWN_INSTANCE, REJECTED, PROCESSING_ERROR;

    String tag() {
      return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * Where a step's time goes between its dispatch and its result, and a start's, hop by hop (the step latency is
   * their sum with the worker's part); {@link #hop} times each. The tag values are the metric's {@code hop} label.
   */
  public enum Hop {
    /** A start request waiting for a writer of the group commit. */
    START_WAIT("start.wait"),
    /** A group of starts: its transaction's statements (insert the instances, write their first steps). */
    START_APPLY("start.apply"),
    /** A group of starts: its commit. */
    START_COMMIT("start.commit"),
    /** An event received by a lane, until its batch's transaction begins. */
    EVENT_WAIT("event.wait"),
    /** A batch of events: its transaction's statements (lock, read, decide, write the next steps and commands). */
    EVENT_APPLY("event.apply"),
    /** A batch of events: its commit (the next commands are durable then). */
    EVENT_COMMIT("event.commit"),
    /**
     * A command, from its transaction's commit until the relay claims it: the relay's wake-up and its turn. A command
     * the relay was not handed but found by searching the outbox counts from its transaction's start instead (its
     * row's created_at, by the database's clock: the rest of that transaction and its commit too).
     */
    OUTBOX_WAIT("outbox.wait"),
    /** A command claimed by the relay until the broker confirms it. */
    OUTBOX_CONFIRM("outbox.confirm");

    private final String tag;

    Hop(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT,
      new PrometheusRegistry(), Clock.SYSTEM, new TraceExemplars());
  // rabbitmq_client_*, not the client's default rabbitmq_*: the broker's own Prometheus plugin exports
  // rabbitmq_connections and rabbitmq_channels too, and a query would add the broker's figures to the clients'.
  private final MetricsCollector brokerClient = new MicrometerMetricsCollector(registry, "rabbitmq.client");
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> latencies = new ConcurrentHashMap<>();
  private final MultiGauge instances;
  private final MultiGauge outboxPending;
  private final MultiGauge outboxLag;
  private final MultiGauge stepsRunning;
  private final MultiGauge stepOldest;
  private final MultiGauge stepOldestInTimeouts;
  private final MultiGauge commandsInFlight;
  private final MultiGauge commandsWaiting;
  private volatile boolean exporting = true;
  private final Map<Hop, Timer> hops = new java.util.EnumMap<>(Hop.class);

  public RuntimeMetrics() {
    ProcessMeters.bindTo(registry);
    for (Hop hop : Hop.values()) {
      hops.put(hop, Timer.builder("baton.hop").description("Where steps and starts spend their time, by hop")
          .tag("hop", hop.tag()).register(registry));
    }
    instances = MultiGauge.builder("baton.instances")
        .description("Instances by status, as last read from the database")
        .register(registry);
    // Database-wide values: exported only by the replica GaugeExporter elects, so that summing pods is right.
    outboxPending = MultiGauge.builder("baton.outbox.pending")
        .description("Commands in the outbox not yet confirmed by the broker")
        .register(registry);
    outboxLag = MultiGauge.builder("baton.outbox.lag")
        .baseUnit("seconds")
        .description("Age of the oldest command in the outbox")
        .register(registry);
    stepsRunning = MultiGauge.builder("baton.steps.running")
        .description("Step attempts in flight, per workflow and step")
        .register(registry);
    stepOldest = MultiGauge.builder("baton.step.oldest")
        .baseUnit("seconds")
        .description("How long the oldest attempt in flight of the step has run")
        .register(registry);
    stepOldestInTimeouts = MultiGauge.builder("baton.step.oldest.timeouts")
        .description("The oldest attempt's age in units of its timeout (above 1: a timer that should have fired)")
        .register(registry);
    commandsInFlight = MultiGauge.builder("baton.commands.in.flight")
        .description("Commands with a maxInFlight dispatched and not over yet, per service and command")
        .register(registry);
    commandsWaiting = MultiGauge.builder("baton.commands.waiting.capacity")
        .description("Commands with a maxInFlight waiting in the outbox for capacity (or a pause), per service and command")
        .register(registry);
    Gauge.builder("baton.database.gauges.exporter", this, m -> m.exporting ? 1 : 0)
        .description("1 on the one replica that exports the database-wide gauges (baton_instances, baton_outbox_*)")
        .register(registry);
  }

  /**
   * Whether the database and the broker answer, as this process sees them (1 or 0, read at each scrape): the alert on
   * an unreachable dependency, per replica.
   */
  public void dependencies(BooleanSupplier databaseUp, BooleanSupplier brokerUp) {
    dependency("database", databaseUp);
    dependency("broker", brokerUp);
  }

  /**
   * {@code baton_broker_blocked}: 1 while the broker blocks this runtime's publishing connection (a memory or disk
   * alarm: commands wait in the outbox until it clears), 0 otherwise; read at each scrape.
   */
  public void brokerBlocked(BooleanSupplier blocked) {
    Gauge.builder("baton.broker.blocked", blocked, b -> b.getAsBoolean() ? 1 : 0)
        .description("1 while the broker blocks the runtime's publishing connection (memory or disk alarm)")
        .strongReference(true)
        .register(registry);
  }

  private void dependency(String name, BooleanSupplier up) {
    Gauge.builder("baton.runtime.dependency.up", up, u -> u.getAsBoolean() ? 1 : 0)
        .description("1 while the dependency answers this runtime, 0 while it does not")
        .tag("dependency", name)
        .strongReference(true) // Micrometer holds a gauge's object weakly: a method reference alone is collected
        .register(registry);
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * For the connection pool ({@code HikariConfig.setMetricsTrackerFactory}): HikariCP's own meters, tagged with the
   * pool's name ({@code hikaricp_connections_active}, {@code _idle}, {@code _pending}, {@code _acquire_seconds},
   * {@code _timeout_total}...).
   */
  public MetricsTrackerFactory connectionPool() {
    return new MicrometerMetricsTrackerFactory(registry);
  }

  /**
   * For the broker connections ({@code ConnectionFactory.setMetricsCollector}): the RabbitMQ client's own meters over
   * all of them ({@code rabbitmq_client_connections}, {@code _channels}, {@code _published_total},
   * {@code _consumed_total}, {@code _acknowledged_total}, the publisher confirms
   * {@code _acknowledged_published_total} and {@code _not_acknowledged_published_total}...).
   */
  public MetricsCollector brokerClient() {
    return brokerClient;
  }

  /**
   * A request the HTTP server answered, as Micrometer's {@code http.server.requests} ({@code
   * http_server_requests_seconds_count}, {@code _sum}, and a few buckets for a percentile per route: a route's full
   * histogram would be some seventy series).
   *
   * @param route the route template it matched ({@code /api/v1/instances/{id}}), never its path: one series per
   *     route, not per instance
   */
  public void httpRequest(String method, String route, int status, long nanos) {
    Timer.builder("http.server.requests")
        .description("Requests answered by the HTTP server, by method, route template and status")
        .tags("method", method, "uri", route, "status", Integer.toString(status))
        .tag("outcome", Outcome.forStatus(status).name())
        .serviceLevelObjectives(HTTP_BUCKETS)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  /** The OpenMetrics text format's content type (with exemplars). */
  public static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

  public String scrape() {
    return registry.scrape();
  }

  public String scrape(String contentType) {
    return registry.scrape(contentType);
  }

  /**
   * An event moved its instance; latency is from the dispatch of the attempt it answers, per workflow, step (a
   * compensation counts under its step) and result.
   */
  public void eventApplied(String namespace, String workflow, String step, EventResult result, long latencyMillis) {
    counter("baton.events.processed", "Events applied to their instance", namespace, workflow, "result", result.key())
        .increment();
    String key = namespace + '\u0000' + workflow + '\u0000' + step + '\u0000' + result.key();
    latencies.computeIfAbsent(key, k -> Timer.builder("baton.step.latency")
            .description("From dispatching a step to applying its result")
            .tags(WORKFLOW_NAMESPACE, namespace, "workflow", workflow, "step", step, "result", result.key())
            .publishPercentileHistogram()
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofHours(1))
            .register(registry))
        .record(latencyMillis, TimeUnit.MILLISECONDS);
  }

  /** One pass through a hop that took {@code nanos} (negative values, from clocks apart, count as 0). */
  public void hop(Hop hop, long nanos) {
    hops.get(hop).record(Math.max(0, nanos), TimeUnit.NANOSECONDS);
  }

  public void duplicateIgnored(String namespace, String workflow) {
    counter("baton.events.duplicates", "Redelivered events recognised by message id and ignored", namespace, workflow)
        .increment();
  }

  public void staleIgnored(String namespace, String workflow) {
    counter("baton.events.stale", "Events for an execution no longer in flight, ignored", namespace, workflow)
        .increment();
  }

  /** @param namespace the namespace the event names, or "" when it names none */
  public void foreignIgnored(String namespace, String workflow) {
    counter("baton.events.foreign", "Events of another workflow that reached this queue, ignored", namespace, workflow)
        .increment();
  }

  /** @param namespace the namespace the event names, or "" when it names none (a malformed event may not) */
  public void parked(String namespace, String workflow, ParkReason reason) {
    counter("baton.events.parked", "Events parked in q.dlx.orchestrator.<workflow>", namespace, workflow, "reason",
        reason.tag())
        .increment();
  }

  public void instanceStarted(String namespace, String workflow) {
    counter("baton.instances.started", "Instances started", namespace, workflow).increment();
  }

  public void stepTimedOut(String namespace, String workflow) {
    counter("baton.steps.timedout", "Executions that got no result before their timeout", namespace, workflow)
        .increment();
  }

  public void outboxPublished(int count) {
    counters.computeIfAbsent("baton.outbox.published", k -> Counter.builder(k)
        .description("Commands published and confirmed by the broker").register(registry)).increment(count);
  }

  /** Of those, the commands their committing thread published itself (the relay's fast path). */
  public void outboxPublishedAtCommit(int count) {
    counters.computeIfAbsent("baton.outbox.published.at.commit", k -> Counter.builder(k)
        .description("Commands published by the thread that committed them, without waiting for the relay's")
        .register(registry)).increment(count);
  }

  public void outboxUnroutable(String exchange, int count) {
    counters.computeIfAbsent("baton.outbox.unroutable\u0000" + exchange, k -> Counter.builder("baton.outbox.unroutable")
        .description("Commands the broker could not route (kept and retried later)")
        .tag("exchange", exchange).register(registry)).increment(count);
  }
  public void outboxRefused(String exchange, int count) {
    counters.computeIfAbsent("baton.outbox.refused\u0000" + exchange, k -> Counter.builder("baton.outbox.refused")
        .description("Commands the broker refused (nack, channel error on the command alone, unroutable for good):"
            + " their attempts fail")
        .tag("exchange", exchange).register(registry)).increment(count);
  }


  /**
   * Whether this replica exports the database-wide gauges ({@link GaugeExporter}); the others export none of them
   * (the counts API still serves them everywhere).
   */
  public void exportDatabaseGauges(boolean export) {
    exporting = export;
  }

  /** Replaces the per-status gauge with a fresh count from the database. */
  public void instanceCounts(List<StatusCount> counts) {
    lastCounts = List.copyOf(counts);
    instances.register((exporting ? counts : List.<StatusCount>of()).stream()
        .map(c -> MultiGauge.Row.of(
            Tags.of(WORKFLOW_NAMESPACE, c.namespace(), "workflow", c.workflow(), "status", c.status()), c.count()))
        .toList(), true);
  }

  /** The instance counts of the last refresh (empty before the first): what {@code GET /api/v1/counts} serves. */
  public List<StatusCount> lastInstanceCounts() {
    return lastCounts;
  }

  public void outboxBacklog(long pending, double oldestAgeSeconds) {
    outboxPending.register(exporting ? List.of(MultiGauge.Row.of(Tags.empty(), pending)) : List.of(), true);
    outboxLag.register(exporting ? List.of(MultiGauge.Row.of(Tags.empty(), oldestAgeSeconds)) : List.of(), true);
  }

  /**
   * The steps in flight per workflow and step, from the database: how many, the oldest's age, and that age in units of
   * the step's timeout (a value above 1 means a timer that should have fired did not).
   */
  public void runningSteps(List<RunningSteps.Group> groups) {
    List<RunningSteps.Group> shown = exporting ? groups : List.of();
    stepsRunning.register(shown.stream().map(g -> MultiGauge.Row.of(stepTags(g), g.running())).toList(), true);
    stepOldest.register(shown.stream().map(g -> MultiGauge.Row.of(stepTags(g), g.oldestSeconds())).toList(), true);
    stepOldestInTimeouts.register(shown.stream().filter(g -> g.oldestInTimeouts() != null)
        .map(g -> MultiGauge.Row.of(stepTags(g), g.oldestInTimeouts())).toList(), true);
  }

  /** The limited commands in flight and waiting, from the database (docs/design.md#concurrency-limits). */
  public void commandCapacity(List<LimitStore.Waiting> commands) {
    List<LimitStore.Waiting> shown = exporting ? commands : List.of();
    commandsInFlight.register(shown.stream().map(w -> MultiGauge.Row.of(commandTags(w), w.inFlight())).toList(), true);
    commandsWaiting.register(shown.stream().map(w -> MultiGauge.Row.of(commandTags(w), w.waiting())).toList(), true);
  }

  private static Tags commandTags(LimitStore.Waiting w) {
    return Tags.of(WORKFLOW_NAMESPACE, w.namespace(), "service", w.service(), "command", w.command());
  }

  private static Tags stepTags(RunningSteps.Group g) {
    return Tags.of(WORKFLOW_NAMESPACE, g.namespace(), "workflow", g.workflow(), "step", g.step());
  }

  private Counter counter(String name, String description, String namespace, String workflow) {
    return counters.computeIfAbsent(name + '\u0000' + namespace + '\u0000' + workflow,
        k -> Counter.builder(name).description(description).tags(WORKFLOW_NAMESPACE, namespace, "workflow", workflow)
            .register(registry));
  }

  private Counter counter(String name, String description, String namespace, String workflow, String tag,
      String value) {
    return counters.computeIfAbsent(name + '\u0000' + namespace + '\u0000' + workflow + '\u0000' + value,
        k -> Counter.builder(name).description(description)
            .tags(WORKFLOW_NAMESPACE, namespace, "workflow", workflow, tag, value).register(registry));
  }
}
