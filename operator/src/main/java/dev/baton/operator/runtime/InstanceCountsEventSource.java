package dev.baton.operator.runtime;

import dev.baton.api.v1alpha1.Workflow;
import dev.baton.contract.BatonDuration;
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
 * exactly the Workflows whose status shows other counts. Until the runtime has answered once, nothing is known and
 * statuses keep what they show; when it stops answering, the last counts stand (they are informational: no condition
 * changes). A failure is logged once at WARN, then at DEBUG until the runtime answers again.
 */
public final class InstanceCountsEventSource extends AbstractEventSource<InstanceCounts, Workflow> {

  private static final Logger LOG = LoggerFactory.getLogger(InstanceCountsEventSource.class);

  private final RuntimeCounts runtime;
  private final Duration interval;
  private final IndexerResourceCache<Workflow> workflows;
  private volatile Map<ResourceID, InstanceCounts> latest;
  private volatile String failing;
  private ScheduledExecutorService timer;

  public InstanceCountsEventSource(RuntimeCounts runtime, Duration interval, IndexerResourceCache<Workflow> workflows) {
    super(InstanceCounts.class, "instance-counts");
    this.runtime = runtime;
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
    try {
      latest = runtime.fetch();
      if (failing != null) {
        LOG.info("Instance counts from the runtime at {} are available again", runtime.uri());
        failing = null;
      }
      workflows.list()
          .filter(wf -> !InstanceCounts.of(wf.getStatus()).equals(countsOf(wf)))
          .map(ResourceID::fromResource)
          .forEach(id -> getEventHandler().handleEvent(new Event(id)));
    } catch (RuntimeCounts.Unavailable e) {
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
