package dev.baton.runtime.app;

import com.rabbitmq.client.Connection;
import dev.baton.runtime.broker.AmqpConnector;
import dev.baton.runtime.core.RandomIds;
import dev.baton.runtime.core.StateMachine;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.definitions.DefinitionRecorder;
import dev.baton.runtime.definitions.RouteTable;
import dev.baton.runtime.definitions.ServiceWatcher;
import dev.baton.runtime.definitions.WorkflowDeletions;
import dev.baton.runtime.definitions.WorkflowWatcher;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.runtime.dispatch.Limits;
import dev.baton.runtime.dispatch.Pauses;
import dev.baton.runtime.engine.BulkOperations;
import dev.baton.runtime.engine.ChildWakeups;
import dev.baton.runtime.engine.ChildWorkflows;
import dev.baton.runtime.engine.CommandComposer;
import dev.baton.runtime.engine.CommandRefusals;
import dev.baton.runtime.engine.Engine;
import dev.baton.runtime.engine.InstanceEndings;
import dev.baton.runtime.engine.InstanceService;
import dev.baton.runtime.engine.UnitOfWork;
import dev.baton.runtime.events.ConsumerRegistry;
import dev.baton.runtime.http.ApiAuth;
import dev.baton.runtime.http.ApiSecurity;
import dev.baton.runtime.http.HealthCheck;
import dev.baton.runtime.http.HttpApi;
import dev.baton.runtime.http.InstanceDocuments;
import dev.baton.runtime.http.auth.AccessGate;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.http.auth.KubernetesReviews;
import dev.baton.runtime.http.auth.RuntimeTargets;
import dev.baton.runtime.http.auth.SubjectAccessReviewAuthorizer;
import dev.baton.runtime.http.auth.TokenReviewAuthenticator;
import dev.baton.runtime.metrics.DatabaseGauges;
import dev.baton.runtime.metrics.GaugeExporter;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.relay.BrokerMessageLimit;
import dev.baton.runtime.relay.OutboxRelay;
import dev.baton.runtime.retention.RetentionJob;
import dev.baton.runtime.schedules.Scheduler;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.DefinitionStore;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.LinkStore;
import dev.baton.runtime.store.OperationStore;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.StepStore;
import dev.baton.runtime.store.TransitionWriter;
import dev.baton.runtime.timers.TimeoutSweeper;
import dev.baton.runtime.tracing.InstanceTracing;
import dev.baton.runtime.tracing.PublishTracing;
import dev.baton.runtime.tracing.RuntimeTracing;
import dev.baton.runtime.ui.DeadLetterDesk;
import dev.baton.runtime.ui.InstanceButtons;
import dev.baton.runtime.ui.TraceLink;
import dev.baton.runtime.ui.WebUi;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orchestrator runtime as a component: database, step loop, outbox relay, timeout poller and HTTP API. Used by
 * the runtime's main, by {@code baton dev} and by tests.
 */
public final class BatonRuntime implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BatonRuntime.class);
  private static final Duration DRAIN_GRACE = Duration.ofSeconds(10);
  /** How often the pauses are followed: a pause or a resume takes effect within about this long. */
  private static final Duration PAUSE_LOOK = Duration.ofSeconds(1);
  /** How often the schedules are looked at: a fire starts within about this long of its time. */
  private static final Duration SCHEDULE_LOOK = Duration.ofSeconds(1);
  /** How often a bulk operation takes its next page: the pace that keeps it from taking the database. */
  private static final Duration BULK_ROUND = Duration.ofMillis(100);

  private final RuntimeSettings settings;
  private final RuntimeMetrics metrics = new RuntimeMetrics();
  /** What was started, closed in reverse order. */
  private final List<AutoCloseable> started = new ArrayList<>();
  private HttpApi http;
  private boolean closed;

  private BatonRuntime(RuntimeSettings settings) {
    this.settings = settings;
  }

  /**
   * Migrates the database, learns Workflow definitions by watching them (read-only) through {@code client}, and
   * starts consuming and serving. The client stays owned by the caller.
   */
  public static BatonRuntime start(RuntimeSettings settings, KubernetesClient client) {
    return start(settings, client, null);
  }

  /**
   * As {@link #start(RuntimeSettings, KubernetesClient)}, with spans going to {@code tracing} (tests: an in-memory
   * exporter); null reads the {@code OTEL_*} variables. The runtime closes it.
   */
  public static BatonRuntime start(RuntimeSettings settings, KubernetesClient client, RuntimeTracing tracing) {
    BatonRuntime runtime = new BatonRuntime(settings);
    try {
      runtime.startParts(client, tracing != null ? tracing : RuntimeTracing.fromEnvironment());
      return runtime;
    } catch (RuntimeException | IOException | TimeoutException e) {
      runtime.close();
      throw new IllegalStateException("the runtime could not start: " + e.getMessage(), e);
    }
  }

  private void startParts(KubernetesClient client, RuntimeTracing tracing) throws IOException, TimeoutException {
    LOG.info("Starting the Baton runtime: {}", settings);
    started.add(tracing); // closed last: it flushes the spans of everything closed before it
    Database database = Database.open(settings.database(), metrics.connectionPool());
    started.add(database);

    AmqpConnector connector = new AmqpConnector(settings.amqpUri(), settings.amqpUsername(), settings.amqpPassword(),
        settings.amqpCaFile(), settings.amqpAddresses()).meteredBy(metrics.brokerClient());
    // Consuming and publishing on separate connections: a broker that blocks publishers must not stop the ACKs.
    Connection consumerConnection = connector.open("baton-runtime-consumer");
    started.add(consumerConnection);
    Connection publisherConnection = connector.open("baton-runtime-publisher");
    started.add(publisherConnection);
    LOG.info("Connected to RabbitMQ at {}", connector.safeAddress());

    InstanceStore instances = new InstanceStore();
    StepStore steps = new StepStore();
    OutboxStore outbox = new OutboxStore();
    DefinitionStore definitions = new DefinitionStore();
    DefinitionCatalog catalog = new DefinitionCatalog(definitions);
    InstanceTracing instanceTracing = new InstanceTracing(tracing.openTelemetry());
    // Learned from the broker's first refusal of an oversized command: then no command over it is written at all.
    BrokerMessageLimit brokerLimit = new BrokerMessageLimit();
    // Whether some command has a maxInFlight: then the steps that end give their slots back as they end.
    java.util.concurrent.atomic.AtomicBoolean limitsInUse = new java.util.concurrent.atomic.AtomicBoolean();
    Engine engine = new Engine(instances, steps, catalog,
        new StateMachine(RandomIds::next, settings.maxCommandBytes(), brokerLimit::commandBytes),
        new CommandComposer(instanceTracing), new TransitionWriter(limitsInUse::get), instanceTracing, outbox, Clock.systemUTC());

    InstanceService[] service = new InstanceService[1];
    Refusals refusals = new Refusals(() -> service[0]);
    started.add(refusals);
    OutboxRelay relay = new OutboxRelay(database, outbox, publisherConnection, metrics, settings.outboxBatchSize(),
        settings.outboxPollInterval(), refusals, brokerLimit, new PublishTracing(tracing.openTelemetry()),
        settings.outboxFastPath());
    relay.start();
    started.add(relay);
    metrics.brokerBlocked(relay::brokerBlocked);

    WorkflowWatcher[] watcher = new WorkflowWatcher[1];
    InstanceEndings endings = new InstanceEndings(); // told to the API's requests waiting for an instance's end
    ChildWakeups wakeups = new ChildWakeups(); // told which parents' child workflow steps moved
    UnitOfWork unitOfWork = new UnitOfWork(database, relay, endings, wakeups);
    // Bound before anything consumes: a child step decided without it would start no child.
    ChildWorkflows children = new ChildWorkflows(unitOfWork, engine, instances, steps, new LinkStore(), catalog,
        new ChildWorkflows.Workflows() {
          @Override
          public Optional<Workflow> find(String namespace, String name) {
            return watcher[0] == null ? Optional.empty() : watcher[0].find(namespace, name);
          }

          @Override
          public boolean ready() {
            return watcher[0] != null;
          }
        }, settings.requireReady());
    engine.children(children);
    wakeups.listen(children::wake);
    endings.listen(children::ended);
    started.add(children);
    ConsumerRegistry consumers = ConsumerRegistry.start(consumerConnection, publisherConnection, unitOfWork,
        engine, metrics,
        new ConsumerRegistry.Settings(settings.consumerThreads(), settings.prefetch(), settings.eventBatchSize()),
        () -> watcher[0] == null ? Set.of() : watcher[0].names());
    started.add(() -> consumers.stop(DRAIN_GRACE));

    GaugeExporter exporter = new GaugeExporter(settings.database());
    started.add(exporter);
    DatabaseGauges gauges = new DatabaseGauges(database, instances, outbox, metrics, consumers::activeWorkflows,
        exporter);
    gauges.run(); // learn the workflows with unfinished instances before consuming

    service[0] = new InstanceService(unitOfWork, instances, steps, catalog, engine, metrics);
    started.add(service[0]); // answers the starts still waiting before the database closes
    RouteTable routes = new RouteTable(database, definitions);
    WorkflowDeletions deletions = new WorkflowDeletions(service[0]::failRunning, routes);
    started.add(deletions);
    watcher[0] = WorkflowWatcher.start(client, settings.namespaces(),
        new DefinitionRecorder(database, catalog, consumers::ensure, () -> {
          gauges.run(); // a deleted Workflow's queue stays consumed while it has unfinished instances: recount first
          consumers.reconcile();
        }), deletions);
    started.add(watcher[0]);
    consumers.reconcile();

    ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2, daemonThreads("baton-runtime-timer"));
    started.add(() -> {
      scheduler.shutdownNow();
      scheduler.awaitTermination(DRAIN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    });
    Periodic.every(scheduler, settings.timeoutPollInterval(), new TimeoutSweeper(database, unitOfWork, instances,
        steps, engine, metrics, settings.timeoutBatchSize()));
    Periodic.every(scheduler, settings.metricsRefreshInterval(), gauges);
    routes.run(); // known before the API answers
    Periodic.every(scheduler, settings.metricsRefreshInterval(), routes);
    Periodic.every(scheduler, settings.consumerRetryInterval(), consumers::reconcile);
    Periodic.every(scheduler, settings.retentionInterval(),
        new RetentionJob(database, instances, settings.retention()));
    // The relay hands refusals over after its commit; this catches those a crash in between left marked.
    Periodic.every(scheduler, settings.timeoutPollInterval(), refusals::refused);
    // The same for child workflows: a parent whose wake-up a crash lost.
    Periodic.every(scheduler, settings.timeoutPollInterval(), () -> children.sweep(settings.timeoutBatchSize()));

    // Bulk operations, a page per round on a thread of their own: never the timers' or the step loop's.
    BulkOperations bulk = new BulkOperations(database, instances, new OperationStore(), service[0],
        Clock.systemUTC());
    ScheduledExecutorService bulkRounds = Executors.newSingleThreadScheduledExecutor(daemonThreads("baton-bulk"));
    started.add(() -> {
      bulkRounds.shutdownNow();
      bulkRounds.awaitTermination(DRAIN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    });
    Periodic.every(bulkRounds, BULK_ROUND, bulk);
    // Pauses: the resources' spec.paused, recorded for every relay, and the held steps' timers parked.
    Optional<ServiceWatcher> services = ServiceWatcher.start(client, settings.namespaces());
    services.ifPresent(started::add);
    Pauses pauses = new Pauses(database, watcher[0], () -> services);
    pauses.run(); // before the API takes starts: a Workflow paused while no runtime ran holds its first commands
    Periodic.every(scheduler, PAUSE_LOOK, pauses);
    Limits limits = new Limits(database, () -> services, recorded -> {
      limitsInUse.set(!recorded.isEmpty());
      relay.limits(recorded);
    }, metrics);
    limits.run(); // the relay knows the limits before the API takes starts
    Periodic.every(scheduler, PAUSE_LOOK, limits);
    // Schedules: each runtime looks; the row of a schedule decides which one fires it.
    WorkflowWatcher workflows = watcher[0];
    Scheduler schedules = new Scheduler(database, unitOfWork, service[0], workflows::all, settings.requireReady(),
        Clock.systemUTC());
    Periodic.every(scheduler, SCHEDULE_LOOK, schedules);

    HealthCheck health = new HealthCheck() {
      @Override
      public boolean databaseUp() {
        return database.isReachable();
      }

      @Override
      public boolean brokerUp() {
        return consumerConnection.isOpen() && publisherConnection.isOpen();
      }

      @Override
      public Set<String> consuming() {
        return consumers.subscribed();
      }

      @Override
      public List<String> lanesNotRunning() {
        return consumers.lanesNotRunning();
      }

      @Override
      public boolean brokerBlocked() {
        return relay.brokerBlocked();
      }
    };
    metrics.dependencies(health::databaseUp, health::brokerUp);
    WebUi.Parts ui = new WebUi.Parts(database, watcher[0],
        new InstanceDocuments(database, instances, steps), new InstanceButtons(service[0]), new DefinitionStore(),
        DeadLetterDesk.of(settings.managementUrl(), settings.amqpUri(),
            settings.managementUsername() != null ? settings.managementUsername() : settings.amqpUsername(),
            settings.managementPassword() != null ? settings.managementPassword() : settings.amqpPassword(),
            settings.amqpCaFile(), settings.amqpAddresses()), new TraceLink(settings.traceUrl()), bulk,
        schedules::standings);
    http = HttpApi.start(settings.httpHost(), settings.httpPort(), settings.maxRequestBytes(), settings.requireReady(),
        new HttpApi.Parts(database, instances, steps, service[0], watcher[0], metrics, health, routes,
            (javalinRoutes, security) -> WebUi.register(javalinRoutes, ui, security), endings, bulk, schedules),
        security(settings, client, database, instances));
    started.add(http);
    LOG.info("Baton runtime ready: HTTP API on {}:{}, web UI at http://{}:{}/ui/", settings.httpHost(), http.port(),
        settings.httpHost(), http.port());
  }

  /**
   * Who may call the API and the UI ({@code BATON_AUTH}): the runtime's own tokens, or Kubernetes tokens and RBAC,
   * asked through the runtime's own client of the API server.
   */
  private ApiSecurity security(RuntimeSettings settings, KubernetesClient client, Database database,
      InstanceStore instances) {
    if (settings.auth() == AuthMode.KUBERNETES) {
      KubernetesClient reviews = KubernetesReviews.clientFor(client);
      started.add(reviews);
      return ApiSecurity.kubernetes(new AccessGate(new TokenReviewAuthenticator(reviews, settings.authAudiences()),
          new SubjectAccessReviewAuthorizer(reviews), new RuntimeTargets(database, instances, reviews)),
          settings.trustedProxy());
    }
    return ApiSecurity.tokens(new ApiAuth(settings.apiToken(), settings.apiReadToken()), settings.trustedProxy());
  }

  /** The port the HTTP API listens on. */
  public int httpPort() {
    if (http == null) {
      throw new IllegalStateException("the runtime is not running");
    }
    return http.port();
  }

  /** The routes the HTTP API registered ({@link HttpApi#routes()}), for the test that holds them to the API's table. */
  public Set<String> httpRoutes() {
    if (http == null) {
      throw new IllegalStateException("the runtime is not running");
    }
    return http.routes();
  }

  /** The meters, for embedding (e.g. {@code baton dev}) and tests. */
  public RuntimeMetrics metrics() {
    return metrics;
  }

  /** Stops consuming, lets in-flight events finish, then closes the broker and database connections. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (int i = started.size() - 1; i >= 0; i--) {
      try {
        started.get(i).close();
      } catch (Exception e) {
        LOG.warn("Stopping {} failed: {}", started.get(i).getClass().getSimpleName(), e.toString());
      }
    }
    started.clear();
    LOG.info("Baton runtime stopped");
  }

  /**
   * Applies the commands the broker refused ({@link InstanceService#applyRefusals}) on a thread of its own, once per
   * hand-over however many come meanwhile: the relay's thread never waits for an instance row.
   */
  private static final class Refusals implements CommandRefusals, AutoCloseable {

    private final java.util.function.Supplier<InstanceService> service;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(daemonThreads("baton-refusals"));
    private final AtomicBoolean due = new AtomicBoolean();

    Refusals(java.util.function.Supplier<InstanceService> service) {
      this.service = service;
    }

    @Override
    public void refused() {
      if (service.get() == null || !due.compareAndSet(false, true)) {
        return; // not wired yet (the periodic run catches up), or a run is due already and will see these too
      }
      try {
        thread.execute(this::apply);
      } catch (RejectedExecutionException stopping) {
        due.set(false);
      }
    }

    private void apply() {
      due.set(false);
      try {
        service.get().applyRefusals();
      } catch (java.sql.SQLException | RuntimeException e) {
        LOG.warn("Applying the commands the broker refused failed, tried again shortly: {}", e.toString());
      }
    }

    @Override
    public void close() throws InterruptedException {
      thread.shutdownNow();
      thread.awaitTermination(DRAIN_GRACE.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  /** Fixed delay: a slow round (a big timeout sweep) is never run twice at once. */
  private static ThreadFactory daemonThreads(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
