package dev.baton.worker;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import dev.baton.contract.TlsTrust;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.probes.ProbeServer;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.messaging.BrokerAddresses;
import dev.baton.messaging.ConfirmedPublisher;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Baton worker: consumes the command and subscription queues of one service and follows docs/design.md#message-contract for every
 * message: manual ack after the confirmed result event, staircase retries through the retry exchange, dead letters
 * with their reason, duplicates answered from the {@link IdempotencyStore}.
 *
 * <pre>{@code
 * try (BatonWorker worker = BatonWorker.builder()
 *     .fromEnvironment()
 *     .command("pay", cmd -> CommandResult.success(Map.of("paymentId", "p-42")))
 *     .build()) {
 *   worker.start();
 *   ...
 * }
 * }</pre>
 *
 * <p>The worker never declares an exchange or a queue (the operator does) and publishes only to its service's event
 * and retry exchanges, which is all its broker user may do (docs/design.md#security).
 */
public final class BatonWorker implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BatonWorker.class);
  /** How long a published result, retry or dead letter may wait for its confirm before it is published again. */
  private static final Duration CONFIRM_TIMEOUT = Duration.ofSeconds(30);

  private enum State { NEW, RUNNING, CLOSED }

  private final ServiceTopology topology;
  private final ConnectionFactory factory;
  private final List<Address> addresses;
  private final String connectionName;
  private final int prefetch;
  private final int concurrency;
  private final Duration shutdownTimeout;
  private final HandlerLimits limits;
  private final Map<String, DeliveryProcessor> processors;
  /** The worker's meters, or null when metrics are off. */
  private final WorkerMeters meters;
  /** The port of the health endpoint ({@code /healthz}, {@code /metrics}), or null for none. */
  private final Integer healthPort;
  private volatile ProbeServer probes;

  private final InFlight inFlight = new InFlight();
  private volatile boolean stopping;
  /** Written under the worker's lock (start, close); read without it, so that asking never waits for a close. */
  private volatile State state = State.NEW;
  private final TimedHandlers handlers;
  private Connection connection;
  private Connection publisherConnection;
  private ConfirmedPublisher publisher;
  private ExecutorService consumerThreads;
  private ScheduledExecutorService supervisor;
  private ScheduledExecutorService publishRetries;
  private ExecutorService acks;
  private final List<ConsumerChannel> channels = new ArrayList<>();

  private BatonWorker(Builder b) {
    this.topology = b.environment.topology();
    this.factory = BrokerConnection.prepare(b.connectionFactory);
    // A port left out is the URI's (or the factory's) port: 5671 for amqps.
    this.addresses = BrokerAddresses.orFactory(BrokerAddresses.parse(b.addresses, factory.getPort()), factory);
    this.connectionName = b.connectionName != null ? b.connectionName
        : BrokerConnection.connectionName(topology.service());
    this.prefetch = b.prefetch != null ? b.prefetch : b.environment.prefetch();
    this.concurrency = b.concurrency;
    this.shutdownTimeout = b.shutdownTimeout;
    this.limits = new HandlerLimits(b.handlerTimeout, b.maxResultBytes);
    this.healthPort = b.healthPort;
    this.meters = b.meterRegistry != null || b.metricsEnabled
        ? WorkerMeters.of(b.meterRegistry, topology.service(), inFlight::count) : null;
    WorkerListener listener = meters == null ? new SafeListener(b.listener)
        : new SafeListener(b.listener, meters.listener());
    // Handlers run here, never on the client's dispatch thread. By default a thread for every delivery that can be
    // unacked at once: a handler past its limit keeps its delivery unacked, so the prefetch bounds them anyway, and
    // the bound still holds when a lost connection hands its deliveries back while their handlers run on.
    int handlerThreads = b.handlerThreads != null ? b.handlerThreads
        : (int) Math.min(Integer.MAX_VALUE, (long) prefetch * concurrency * topology.consumers().size());
    this.handlers = new TimedHandlers(Math.max(1, handlerThreads), threads(topology.service() + "-handler", true),
        listener);
    CommandTracing tracing = new CommandTracing(b.openTelemetry != null ? b.openTelemetry : GlobalOpenTelemetry.get());
    this.processors = new LinkedHashMap<>();
    for (ConsumerTopology c : topology.consumers()) {
      processors.put(c.name(), c.kind() == ConsumerTopology.Kind.COMMAND
          ? new CommandProcessor(topology.service(), c, b.commands.get(c.name()), b.idempotency, listener, handlers,
              limits, tracing)
          : new SubscriptionProcessor(topology.service(), c, b.subscriptions.get(c.name()), b.idempotency, listener,
              handlers, limits));
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects and starts consuming every queue of the service.
   *
   * @throws IllegalStateException when the broker cannot be reached or a queue cannot be consumed (it does not exist,
   *     or the user may not read it); nothing is left open then
   */
  public synchronized void start() {
    if (state != State.NEW) {
      throw new IllegalStateException("a worker starts once; this one is " + state.name().toLowerCase());
    }
    // The client's dispatch threads only hand deliveries over to the channels' own threads.
    consumerThreads = Executors.newCachedThreadPool(threads(topology.service() + "-consumer", false));
    supervisor = Executors.newSingleThreadScheduledExecutor(threads(topology.service() + "-supervisor", true));
    publishRetries = Executors.newSingleThreadScheduledExecutor(threads(topology.service() + "-republish", true));
    acks = Executors.newSingleThreadExecutor(threads(topology.service() + "-acks", true));
    try {
      // Consuming and publishing on connections of their own, as RabbitMQ recommends: a broker that blocks
      // publishers (memory or disk alarm) then never holds up the acks, nor the deliveries of other channels.
      connection = factory.newConnection(consumerThreads, addresses, connectionName);
      publisherConnection = factory.newConnection(consumerThreads, addresses, connectionName + "-publisher");
    } catch (IOException | TimeoutException e) {
      closeConnections();
      shutdownThreads();
      state = State.CLOSED;
      throw new IllegalStateException("cannot connect to RabbitMQ at " + BrokerConnection.describe(factory) + ": "
          + ConsumerChannel.rootMessage(e), e);
    }
    // A broker short of memory or disk blocks publishers: results then wait, and operators should know why.
    publisherConnection.addBlockedListener(
        reason -> LOG.warn("worker {}: the broker blocks publishing ({}); results wait until it unblocks",
            topology.service(), reason),
        () -> LOG.info("worker {}: the broker unblocked publishing", topology.service()));
    publisher = new ConfirmedPublisher(publisherConnection, topology.service(), CONFIRM_TIMEOUT);
    // A duplicate waits for its first delivery's handler; one that outlives its limit may keep it waiting longer,
    // then the duplicate looks again after the same while.
    ConsumerChannel.Shared shared = new ConsumerChannel.Shared(publisher, inFlight, () -> stopping, supervisor,
        publishRetries, acks, limits.handlerTimeout().plusSeconds(30), topology.eventExchange());
    for (ConsumerTopology c : topology.consumers()) {
      for (int i = 1; i <= concurrency; i++) {
        ConsumerChannel channel = new ConsumerChannel(connection, c, connectionName + "/" + c.name() + "/" + i,
            prefetch, processors.get(c.name()), shared);
        channels.add(channel);
        try {
          channel.open();
        } catch (IOException | RuntimeException e) {
          stopping = true;
          channels.forEach(ConsumerChannel::close);
          publisher.close();
          closeConnections();
          shutdownThreads();
          state = State.CLOSED;
          throw new IllegalStateException("cannot consume " + c.queue() + " as '" + factory.getUsername()
              + "': " + ConsumerChannel.rootMessage(e) + " (has the operator declared the service's topology, and "
              + "may this user read the queue?)", e);
        }
      }
    }
    state = State.RUNNING;
    if (healthPort != null) {
      probes = ProbeServer.start("baton-" + topology.service(), WorkerSettings.HEALTH_PORT, "0.0.0.0", healthPort,
          () -> {
            WorkerHealth h = health();
            return new ProbeServer.Health(h.ok(), h.detail());
          }, this::metricsText);
    }
    LOG.info("worker {} connected to {} (connections '{}' and '{}-publisher'); consuming {} (prefetch {}, {} "
        + "channel(s) each, handler timeout {} ms, at most {} handlers at once)", topology.service(),
        BrokerConnection.describe(factory), connectionName, connectionName,
        topology.consumers().stream().map(ConsumerTopology::queue).toList(), prefetch, concurrency,
        limits.handlerTimeout().toMillis(), handlers.maxThreads());
  }

  /**
   * Graceful and idempotent: cancels the consumers (deliveries prefetched but not started go back to their queue),
   * waits up to the shutdown timeout for running handlers and the confirms of what they published, then closes the
   * connections. Whatever is still unacked after that is redelivered by the broker.
   */
  @Override
  public synchronized void close() {
    if (state == State.CLOSED) {
      return;
    }
    State was = state;
    state = State.CLOSED;
    stopping = true;
    if (was == State.NEW) {
      handlers.close();
      return;
    }
    channels.forEach(ConsumerChannel::cancel);
    try {
      if (!inFlight.awaitIdle(shutdownTimeout)) {
        LOG.warn("worker {}: {} deliveries still unsettled after {}; closing anyway, the broker redelivers them",
            topology.service(), inFlight.count(), shutdownTimeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    channels.forEach(ConsumerChannel::close);
    publisher.close();
    closeConnections();
    shutdownThreads();
    if (probes != null) {
      probes.close();
      probes = null;
    }
    LOG.info("worker {} closed", topology.service());
  }

  /** Closes the worker gracefully when the JVM shuts down (SIGTERM from Kubernetes). */
  public BatonWorker closeOnJvmShutdown() {
    Runtime.getRuntime().addShutdownHook(new Thread(this::close, "baton-" + topology.service() + "-shutdown"));
    return this;
  }

  /** True between a successful {@link #start()} and the beginning of {@link #close()}. */
  public boolean isRunning() {
    return state == State.RUNNING;
  }

  public String service() {
    return topology.service();
  }

  /** The queues this worker consumes. */
  public List<String> queues() {
    return topology.consumers().stream().map(ConsumerTopology::queue).toList();
  }

  /**
   * Whether the worker is connected and consuming every queue: what {@code /healthz} answers (200 or 503) when the
   * health endpoint is on ({@link Builder#healthPort}).
   */
  public WorkerHealth health() {
    if (state != State.RUNNING) {
      return new WorkerHealth(false, state == State.NEW ? "not started" : "closing");
    }
    if (!connection.isOpen() || !publisherConnection.isOpen()) {
      return new WorkerHealth(false, "not connected to the broker (recovering)");
    }
    List<String> idle = channels.stream().filter(c -> !c.consuming()).map(ConsumerChannel::queue).distinct().toList();
    if (!idle.isEmpty()) {
      return new WorkerHealth(false, "not consuming " + String.join(", ", idle));
    }
    return new WorkerHealth(true, "consuming " + String.join(", ", queues()));
  }

  /** The port {@code /healthz} and {@code /metrics} are served on while the worker runs; 0 when not served. */
  public int healthPort() {
    ProbeServer p = probes;
    return p == null ? 0 : p.port();
  }

  /** Deliveries received and not yet settled (handler running, or its publishes awaiting confirms). */
  public int inFlight() {
    return inFlight.count();
  }

  /** The Prometheus text of the worker's meters, or null when there is none to serve ({@code /metrics}). */
  String metricsText() {
    return meters == null ? null : meters.scrape();
  }

  /** The health endpoint's port as configured, null for none (tests). */
  Integer configuredHealthPort() {
    return healthPort;
  }

  /** How long handlers may run and how large results may be, as configured (tests). */
  HandlerLimits limits() {
    return limits;
  }

  /** The most handlers that run at once, as configured or derived (tests). */
  int handlerThreads() {
    return handlers.maxThreads();
  }

  private void closeConnections() {
    for (Connection c : new Connection[] {connection, publisherConnection}) {
      if (c == null) {
        continue;
      }
      try {
        c.close(5_000);
      } catch (IOException | RuntimeException e) {
        LOG.debug("closing a connection of worker {}: {}", topology.service(), e.toString());
        c.abort();
      }
    }
  }

  private void shutdownThreads() {
    supervisor.shutdownNow();
    publishRetries.shutdownNow();
    acks.shutdownNow();
    handlers.close(); // interrupts handlers still running
    consumerThreads.shutdown();
    try {
      if (!consumerThreads.awaitTermination(5, TimeUnit.SECONDS)) {
        consumerThreads.shutdownNow();
      }
    } catch (InterruptedException e) {
      consumerThreads.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  private static ThreadFactory threads(String prefix, boolean daemon) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "baton-" + prefix + "-" + n.incrementAndGet());
      t.setDaemon(daemon);
      return t;
    };
  }

  /** Configures a worker; {@link #build()} checks that every queue of the service has exactly one handler. */
  public static final class Builder {

    private WorkerEnvironment environment;
    private ConnectionFactory connectionFactory;
    private List<String> addresses = List.of();
    private String connectionName;
    private Integer prefetch;
    private int concurrency = 1;
    private Duration shutdownTimeout = Duration.ofSeconds(20);
    private Duration handlerTimeout = HandlerLimits.DEFAULT_HANDLER_TIMEOUT;
    private int maxResultBytes = HandlerLimits.DEFAULT_MAX_RESULT_BYTES;
    private Integer handlerThreads;
    private IdempotencyStore idempotency = IdempotencyStore.inMemory(10_000);
    private WorkerListener listener = WorkerListener.NONE;
    private OpenTelemetry openTelemetry;
    private MeterRegistry meterRegistry;
    private boolean metricsEnabled;
    private Integer healthPort;
    private final Map<String, CommandHandler> commands = new LinkedHashMap<>();
    private final Map<String, EventHandler> subscriptions = new LinkedHashMap<>();

    private Builder() {}

    /** {@link #fromEnvironment(Map)} of {@link System#getenv()}: what the operator injects into worker pods. */
    public Builder fromEnvironment() {
      return fromEnvironment(System.getenv());
    }

    /**
     * The service's queues, staircases and prefetch from the {@code BATON_*} variables ({@link WorkerEnvironment}),
     * the broker from {@code BATON_RABBITMQ_URI} and, when set, {@code BATON_RABBITMQ_USERNAME}/{@code _PASSWORD} and
     * {@code BATON_RABBITMQ_CA_FILE}; {@code BATON_HANDLER_TIMEOUT}, {@code BATON_MAX_RESULT_BYTES} and
     * {@code BATON_HANDLER_THREADS}, when set, replace {@link #handlerTimeout(Duration)}, {@link #maxResultBytes(int)}
     * and {@link #handlerThreads(int)}; {@code BATON_HEALTH_PORT} and {@code BATON_METRICS_ENABLED}, when set,
     * {@link #healthPort(int)} and {@link #prometheusMetrics()}.
     *
     * @throws dev.baton.contract.settings.InvalidSettingsException naming every variable that is missing or
     *     malformed
     */
    public Builder fromEnvironment(Map<String, String> env) {
      HandlerLimits configured = new HandlerLimits(handlerTimeout, maxResultBytes);
      FromEnvironment read = SettingsReader.read(env, r -> new FromEnvironment(WorkerEnvironment.read(r),
          BrokerConnection.fromEnvironment(r), BrokerConnection.addresses(r), WorkerSettings.limits(r, configured),
          WorkerSettings.handlerThreads(r, handlerThreads), WorkerSettings.healthPort(r, healthPort),
          WorkerSettings.metricsEnabled(r, metricsEnabled)));
      this.environment = read.environment();
      this.connectionFactory = read.connectionFactory();
      this.addresses = read.addresses();
      this.handlerTimeout = read.limits().handlerTimeout();
      this.maxResultBytes = read.limits().maxResultBytes();
      this.handlerThreads = read.handlerThreads();
      this.healthPort = read.healthPort();
      this.metricsEnabled = read.metricsEnabled();
      return this;
    }

    /**
     * A worker's environment (service, broker, the SDK's own limits), read with one reader so that one error lists
     * every bad variable.
     */
    private record FromEnvironment(WorkerEnvironment environment, ConnectionFactory connectionFactory,
        List<String> addresses, HandlerLimits limits, Integer handlerThreads, Integer healthPort,
        boolean metricsEnabled) {}

    /** The service explicitly (tests, or workers configured otherwise): its model and prefetch. */
    public Builder environment(WorkerEnvironment environment) {
      this.environment = Objects.requireNonNull(environment, "environment");
      return this;
    }

    /** The broker explicitly; the factory is copied and automatic recovery switched on in the copy. */
    public Builder connectionFactory(ConnectionFactory connectionFactory) {
      this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
      return this;
    }

    /**
     * The broker as an {@code amqp://user:password@host:port/vhost} URI; for {@code amqps://}, the CA file named by
     * {@code BATON_RABBITMQ_CA_FILE} when that is set (else the JVM's trust store).
     */
    public Builder uri(String uri) {
      return uri(uri, SettingsReader.read(System.getenv(), r -> r.string(TlsTrust.CA_FILE_VARIABLE, null)));
    }

    /**
     * The broker as an {@code amqp://} or {@code amqps://} URI; for {@code amqps://}, the broker's certificate is
     * checked against the PEM file {@code caFile} (null: the JVM's trust store) and its host name verified.
     */
    public Builder uri(String uri, String caFile) {
      this.connectionFactory = BrokerConnection.fromUri(Objects.requireNonNull(uri, "uri"), "the broker URI", caFile);
      return this;
    }

    /**
     * The nodes of a RabbitMQ cluster, {@code host:port} each, tried in order when connecting and recovering, in
     * place of the factory's or URI's host and port ({@code BATON_RABBITMQ_ADDRESSES} with {@link #fromEnvironment}).
     */
    public Builder addresses(List<String> hostPorts) {
      BrokerAddresses.parse(hostPorts, 5672); // refused here, by name, rather than at start
      this.addresses = List.copyOf(hostPorts);
      return this;
    }

    /** Default {@code baton-worker-<service>-<host>}. */
    public Builder connectionName(String connectionName) {
      this.connectionName = connectionName;
      return this;
    }

    /** Unacked deliveries per channel; overrides {@code BATON_PREFETCH}. */
    public Builder prefetch(int prefetch) {
      this.prefetch = HandlerLimits.atLeastOne(prefetch, "prefetch");
      return this;
    }

    /**
     * The most handlers that run at once, over all queues (default: prefetch × concurrency × queues, a thread for
     * every delivery that can be unacked; {@code BATON_HANDLER_THREADS}). A handler that ignores its interrupt keeps
     * its thread until it ends; when all are taken, deliveries wait for one (unacked, so the prefetch stops the
     * broker) rather than starting more threads.
     */
    public Builder handlerThreads(int handlerThreads) {
      this.handlerThreads = HandlerLimits.atLeastOne(handlerThreads, "handlerThreads");
      return this;
    }

    /** Channels (each with its own consumer thread) per queue; default 1. */
    public Builder concurrency(int concurrency) {
      this.concurrency = HandlerLimits.atLeastOne(concurrency, "concurrency");
      return this;
    }

    /** How long {@link BatonWorker#close()} waits for in-flight work; default 20s (under Kubernetes' 30s). */
    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
      return this;
    }

    /**
     * The longest a handler may run (default 10 minutes, {@code BATON_HANDLER_TIMEOUT}); a command of a step with a
     * timeout gets the smaller of this and its step's timeout ({@code baton-step-timeout}), and no more than the time
     * left until its deadline ({@code baton-deadline}). A handler still running then is interrupted, and the channel
     * goes on without it; its delivery stays unacked and its message is not run again until it ends. If it then
     * throws, its command fails technically (retried along the staircase); if it returns, its outcome is published
     * (late) and remembered.
     */
    public Builder handlerTimeout(Duration handlerTimeout) {
      this.handlerTimeout = HandlerLimits.positive(handlerTimeout, "the handler timeout");
      return this;
    }

    /**
     * The largest result event body published (default 16 MiB, {@code BATON_MAX_RESULT_BYTES}); a command whose
     * result is larger goes to its dead-letter queue with reason {@code PayloadTooLarge}, and an {@code error} event
     * says so.
     */
    public Builder maxResultBytes(int maxResultBytes) {
      this.maxResultBytes = HandlerLimits.atLeastOne(maxResultBytes, "maxResultBytes");
      return this;
    }

    public Builder command(String name, CommandHandler handler) {
      register(commands, name, Objects.requireNonNull(handler, "handler"), "command");
      return this;
    }

    public Builder subscription(String name, EventHandler handler) {
      register(subscriptions, name, Objects.requireNonNull(handler, "handler"), "subscription");
      return this;
    }

    /** Default: {@link IdempotencyStore#inMemory(int) inMemory(10_000)}. */
    public Builder idempotency(IdempotencyStore store) {
      this.idempotency = Objects.requireNonNull(store, "store");
      return this;
    }

    public Builder listener(WorkerListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Serves {@code /healthz} (200 while connected and consuming every queue, 503 otherwise: {@link
     * BatonWorker#health()}) and {@code /metrics} (with {@link #meterRegistry} or {@link #prometheusMetrics()}) on
     * this port of every interface while the worker runs, on the JDK's own HTTP server; 0 picks a free port
     * ({@link BatonWorker#healthPort()}). {@code BATON_HEALTH_PORT} with {@link #fromEnvironment} (0 there: none).
     */
    public Builder healthPort(int port) {
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("healthPort must be between 0 and 65535, not " + port);
      }
      this.healthPort = port;
      return this;
    }

    /**
     * Counts what the worker does in {@code registry} ({@link MicrometerWorkerListener}: handled, failed, retried,
     * dead-lettered, expired, in flight, handler time), beside {@link #listener}. A Prometheus registry (or a
     * composite one holding one) is also served at {@code /metrics} of the {@link #healthPort health endpoint}.
     * Needs {@code io.micrometer:micrometer-core}, an optional dependency of the SDK.
     */
    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * The same meters as {@link #meterRegistry} in a Prometheus registry of the SDK's own, served at {@code /metrics}
     * of the {@link #healthPort health endpoint}; {@code BATON_METRICS_ENABLED=true} with {@link #fromEnvironment}.
     * Needs {@code io.micrometer:micrometer-registry-prometheus}, an optional dependency of the SDK.
     */
    public Builder prometheusMetrics() {
      this.metricsEnabled = true;
      return this;
    }

    /**
     * Where handler spans go. Default: {@link GlobalOpenTelemetry#get()} (a no-op unless the application or the
     * OpenTelemetry Java agent registered one; then result events still carry the command's {@code traceparent}).
     */
    public Builder openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
      return this;
    }

    /**
     * @throws IllegalStateException when the service or the broker is not configured, a handler names no queue of
     *     the service, or a queue of the service has no handler
     */
    public BatonWorker build() {
      if (environment == null) {
        throw new IllegalStateException("no service configured: call fromEnvironment() or environment(...)");
      }
      if (connectionFactory == null) {
        throw new IllegalStateException("no broker configured: call fromEnvironment(), uri(...) or connectionFactory(...)");
      }
      ServiceTopology t = environment.topology();
      check(t, ConsumerTopology.Kind.COMMAND, commands, "command");
      check(t, ConsumerTopology.Kind.SUBSCRIPTION, subscriptions, "subscription");
      if (t.consumers().isEmpty()) {
        throw new IllegalStateException("service " + t.service() + " has no commands and no subscriptions to consume");
      }
      return new BatonWorker(this);
    }

    private static <H> void register(Map<String, H> handlers, String name, H handler, String kind) {
      if (handlers.putIfAbsent(Objects.requireNonNull(name, kind + " name"), handler) != null) {
        throw new IllegalArgumentException(kind + " '" + name + "' already has a handler");
      }
    }

    private static void check(ServiceTopology t, ConsumerTopology.Kind kind, Map<String, ?> handlers, String what) {
      List<String> declared = t.consumers().stream().filter(c -> c.kind() == kind).map(ConsumerTopology::name).toList();
      for (String name : handlers.keySet()) {
        if (!declared.contains(name)) {
          throw new IllegalStateException("service " + t.service() + " has no " + what + " '" + name + "' ("
              + what + "s: " + (declared.isEmpty() ? "none" : String.join(", ", declared)) + ")");
        }
      }
      for (String name : declared) {
        if (!handlers.containsKey(name)) {
          throw new IllegalStateException(what + " '" + name + "' of service " + t.service()
              + " has no handler: register one with ." + what + "(\"" + name + "\", ...)");
        }
      }
    }
  }
}
