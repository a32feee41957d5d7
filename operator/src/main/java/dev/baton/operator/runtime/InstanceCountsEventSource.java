package dev.baton.operator.runtime;

import dev.baton.api.v1alpha1.Workflow;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.topology.BindingSpec;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.health.Status;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the counts of all Workflows from the runtime with one request per interval, and triggers a reconciliation of
 * exactly the Workflows whose status shows other counts. In the same poll it reads the result routes of the
 * revisions with unfinished instances ({@link RuntimeRoutes}) and reconciles the Workflows whose routes changed (all
 * of them when the routes first become known), so their orchestrator queue keeps exactly the bindings that are still
 * needed. Until the runtime has answered once, nothing is known and
 * statuses keep what they show; when it stops answering, the last counts stand (they are informational: no condition
 * changes). A failure is logged once at WARN, then at DEBUG until the runtime answers again.
 */
public final class InstanceCountsEventSource extends AbstractEventSource<InstanceCounts, Workflow> {

  private static final Logger LOG = LoggerFactory.getLogger(InstanceCountsEventSource.class);

  private final RuntimeCounts runtime;
  private final RuntimeRoutes routes;
  private volatile Map<ResourceID, Set<BindingSpec>> latestRoutes;
  private final Duration interval;
  private final IndexerResourceCache<Workflow> workflows;
  private volatile Map<ResourceID, InstanceCounts> latest;
  private volatile String failing;
  private ScheduledExecutorService timer;

  public InstanceCountsEventSource(RuntimeCounts runtime, RuntimeRoutes routes, Duration interval,
      IndexerResourceCache<Workflow> workflows) {
    super(InstanceCounts.class, "instance-counts");
    this.runtime = runtime;
    this.routes = routes;
    this.interval = interval;
    this.workflows = workflows;
  }

  @Override
  public synchronized void start() throws OperatorException {
    super.start();
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "baton-instance-counts");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::poll, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public synchronized void stop() throws OperatorException {
    if (timer != null) {
      timer.shutdownNow();
    }
    super.stop();
  }

  /** The counts the Workflow should show; empty while the runtime has not answered yet. */
  public Optional<InstanceCounts> countsOf(Workflow workflow) {
    Map<ResourceID, InstanceCounts> counts = latest;
    return counts == null ? Optional.empty()
        : Optional.of(counts.getOrDefault(ResourceID.fromResource(workflow), InstanceCounts.NONE));
  }

  /**
   * The result bindings the Workflow's revisions with unfinished instances need (besides its current spec's); empty
   * while the runtime has not told them yet — then nothing may be unbound.
   */
  public Optional<Set<BindingSpec>> routesOf(Workflow workflow) {
    Map<ResourceID, Set<BindingSpec>> known = latestRoutes;
    return known == null ? Optional.empty() : Optional.of(known.getOrDefault(ResourceID.fromResource(workflow), Set.of()));
  }

  @Override
  public Set<InstanceCounts> getSecondaryResources(Workflow workflow) {
    return countsOf(workflow).map(Set::of).orElse(Set.of());
  }

  /** A runtime that does not answer is not the operator's ill health: it stays healthy for its probes. */
  @Override
  public Status getStatus() {
    return Status.HEALTHY;
  }

  void poll() {
    pollCounts();
    pollRoutes();
  }

  private void pollRoutes() {
    Map<ResourceID, Set<BindingSpec>> before = latestRoutes;
    Map<ResourceID, Set<BindingSpec>> now;
    try {
      now = routes.fetch();
    } catch (RuntimeException e) {
      LOG.debug("Cannot read result routes from the runtime ({}); the last ones stand", e.getMessage());
      return;
    }
    latestRoutes = now;
    workflows.list().map(ResourceID::fromResource)
        .filter(id -> before == null || !before.getOrDefault(id, Set.of()).equals(now.getOrDefault(id, Set.of())))
        .forEach(id -> getEventHandler().handleEvent(new Event(id)));
  }

  private void pollCounts() {
    try {
      latest = runtime.fetch();
      if (failing != null) {
        LOG.info("Instance counts from the runtime at {} are available again", runtime.where());
        failing = null;
      }
      workflows.list()
          .filter(wf -> !InstanceCounts.of(wf.getStatus()).equals(countsOf(wf)))
          .map(ResourceID::fromResource)
          .forEach(id -> getEventHandler().handleEvent(new Event(id)));
    } catch (RuntimeApi.Unavailable e) {
      failed(e.getMessage());
    } catch (RuntimeException e) {
      failed(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private void failed(String message) {
    if (failing == null) {
      LOG.warn("Cannot read instance counts from the runtime: {}; Workflows keep their last counts, retrying every {}",
          message, BatonDuration.ofMillis(interval.toMillis()));
    } else {
      LOG.debug("Still cannot read instance counts from the runtime: {}", message);
    }
    failing = message;
  }
}
