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
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
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
 *
 * <p>The routes also list exactly the Workflows with unfinished instances, which a deleted Workflow's finalizer waits
 * for ({@link #unfinishedOf}): the Workflows being deleted are reconciled after every read of the routes, and when
 * reading them starts failing.
 */
public final class InstanceCountsEventSource extends AbstractEventSource<InstanceCounts, Workflow> {

  private static final Logger LOG = LoggerFactory.getLogger(InstanceCountsEventSource.class);

  private final RuntimeCounts runtime;
  private final RuntimeRoutes routes;
  private volatile Map<ResourceID, Set<BindingSpec>> latestRoutes;
  /** The last routes read and when that read began; null before the first. */
  private volatile RoutesRead lastRead;
  /** Why the last read of the routes failed; null when it succeeded. */
  private volatile String routesFailing;
  /** When each Workflow being deleted was first asked about: only routes read after that answer for it. */
  private final Map<ResourceID, Instant> askedSince = new ConcurrentHashMap<>();
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

  /**
   * Whether the Workflow, which is being deleted, has unfinished instances, as the runtime's routes say (a Workflow
   * they list has some), with how many its counts show. Only routes whose read began a full interval after this was
   * first asked for the Workflow answer ({@link UnfinishedInstances.State#ASKING} until then): routes read earlier may
   * miss an instance started just before the deletion, as the runtime refreshes them periodically (and at once when
   * its watch sees the deletion). None answer while the last read failed.
   */
  public UnfinishedInstances unfinishedOf(Workflow workflow) {
    ResourceID id = ResourceID.fromResource(workflow);
    Instant asked = askedSince.computeIfAbsent(id, k -> Instant.now());
    RoutesRead read = lastRead;
    String problem = routesFailing;
    if (problem != null) {
      return UnfinishedInstances.unreadable(problem);
    }
    if (read == null || !read.began().isAfter(asked.plus(interval))) {
      return UnfinishedInstances.asking();
    }
    if (!read.routes().containsKey(id)) {
      return UnfinishedInstances.none();
    }
    return UnfinishedInstances.some(countsOf(workflow).map(InstanceCounts::running).orElse(0L));
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
    Set<ResourceID> deleting = workflows.list().filter(Workflow::isMarkedForDeletion).map(ResourceID::fromResource)
        .collect(Collectors.toSet());
    askedSince.keySet().retainAll(deleting); // those gone
    pollCounts();
    pollRoutes();
  }

  private void pollRoutes() {
    Map<ResourceID, Set<BindingSpec>> before = latestRoutes;
    Map<ResourceID, Set<BindingSpec>> now;
    String failedBefore = routesFailing;
    Instant began = Instant.now();
    try {
      now = routes.fetch();
    } catch (RuntimeException e) {
      LOG.debug("Cannot read result routes from the runtime ({}); the last ones stand", e.getMessage());
      routesFailing = e instanceof RuntimeApi.Unavailable ? e.getMessage()
          : e.getClass().getSimpleName() + ": " + e.getMessage();
      if (failedBefore == null) { // the deletions that wait say so
        workflows.list().filter(Workflow::isMarkedForDeletion).map(ResourceID::fromResource)
            .forEach(id -> getEventHandler().handleEvent(new Event(id)));
      }
      return;
    }
    latestRoutes = now;
    lastRead = new RoutesRead(now, began);
    routesFailing = null;
    // Every deletion that waits hears the answer; a Workflow listed without bindings (its revisions no longer load)
    // still has unfinished instances.
    workflows.list()
        .filter(wf -> before == null || wf.isMarkedForDeletion()
            || !Objects.equals(before.get(ResourceID.fromResource(wf)), now.get(ResourceID.fromResource(wf))))
        .map(ResourceID::fromResource)
        .forEach(id -> getEventHandler().handleEvent(new Event(id)));
  }

  /** Routes read from the runtime, and when the read began. */
  private record RoutesRead(Map<ResourceID, Set<BindingSpec>> routes, Instant began) {}

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
