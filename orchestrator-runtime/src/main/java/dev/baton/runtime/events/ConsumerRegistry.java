package dev.baton.runtime.events;

import com.rabbitmq.client.Connection;
import dev.baton.contract.Names;
import dev.baton.runtime.broker.BrokerObjects;
import dev.baton.runtime.engine.Engine;
import dev.baton.runtime.engine.UnitOfWork;
import dev.baton.runtime.metrics.RuntimeMetrics;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which orchestrator queues the lanes consume: those of every Workflow in the watched namespaces, plus those of
 * deleted Workflows that still have unfinished instances. A queue that does not exist yet (the operator has not
 * declared it) is looked for again later; it is checked with a passive declare on a throwaway channel, because
 * consuming a missing queue would close the lane's channel.
 */
public final class ConsumerRegistry {

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerRegistry.class);

  private final Connection connection;
  private final List<Lane> lanes;
  private final ParkingLot parking;
  private final Supplier<Set<String>> declaredWorkflows;
  private final Set<String> missingQueuesLogged = new HashSet<>();
  private volatile Set<String> activeWorkflows = Set.of();
  private boolean stopped;

  private ConsumerRegistry(Connection connection, List<Lane> lanes, ParkingLot parking,
      Supplier<Set<String>> declaredWorkflows) {
    this.connection = connection;
    this.lanes = List.copyOf(lanes);
    this.parking = parking;
    this.declaredWorkflows = declaredWorkflows;
  }

  /** How the consumers run. */
  public record Settings(int threads, int prefetch, int batchSize) {}

  /**
   * Starts the consumer threads (no queue consumed yet: {@link #ensure} and {@link #reconcile} do that).
   *
   * @param consumerConnection the connection the lanes consume on
   * @param publisherConnection the connection parked events are published on (kept apart so that a broker
   *     blocking publishers never stops ACKs)
   * @param declaredWorkflows names of the Workflows that exist now
   */
  public static ConsumerRegistry start(Connection consumerConnection, Connection publisherConnection,
      UnitOfWork unitOfWork, Engine engine, RuntimeMetrics metrics, Settings settings,
      Supplier<Set<String>> declaredWorkflows) {
    return start(consumerConnection, publisherConnection, unitOfWork, engine::applyEvents, metrics, settings,
        declaredWorkflows);
  }

  /** As above, with anything that applies a batch of events in the step loop's transaction (tests: a stand-in). */
  static ConsumerRegistry start(Connection consumerConnection, Connection publisherConnection,
      UnitOfWork unitOfWork, EventBatchApplier applier, RuntimeMetrics metrics, Settings settings,
      Supplier<Set<String>> declaredWorkflows) {
    ParkingLot parking = new ParkingLot(publisherConnection);
    EventSettler settler = new EventSettler(parking, metrics);
    StepLoop stepLoop = new StepLoop(unitOfWork, applier, settler, metrics);
    List<Lane> lanes = new ArrayList<>();
    for (int i = 0; i < settings.threads(); i++) {
      Lane lane = new Lane(i, consumerConnection, settings.prefetch(), settings.batchSize(), stepLoop);
      lane.start();
      lanes.add(lane);
    }
    return new ConsumerRegistry(consumerConnection, lanes, parking, declaredWorkflows);
  }

  /** A Workflow was added or changed: consume its queue now if it exists. */
  public synchronized void ensure(String workflow) {
    if (!stopped) {
      subscribeEverywhere(workflow);
    }
  }

  /** Workflows with unfinished instances, as last read from the database. */
  public void activeWorkflows(Set<String> workflows) {
    activeWorkflows = Set.copyOf(workflows);
  }

  /** Subscribes what is wanted and missing, and lets go of queues nothing needs any more. */
  public synchronized void reconcile() {
    if (stopped) {
      return;
    }
    Set<String> wanted = new HashSet<>(declaredWorkflows.get());
    wanted.addAll(activeWorkflows);
    for (String workflow : wanted) {
      subscribeEverywhere(workflow);
    }
    for (String workflow : subscribed()) {
      if (!wanted.contains(workflow)) {
        LOG.info("Workflow {} is gone and has no unfinished instances: no longer consuming {}", workflow,
            Names.orchestratorQueue(workflow));
        lanes.forEach(l -> l.unsubscribe(workflow));
      }
    }
  }

  /** Workflows whose queue is consumed on at least one lane. */
  public synchronized Set<String> subscribed() {
    Set<String> all = new HashSet<>();
    lanes.forEach(l -> all.addAll(l.subscribedWorkflows()));
    return all;
  }

  /**
   * Lanes that are not running, each with why (restarting after a failure, or its thread ended): empty when all run.
   * {@code /healthz} is DOWN while any is listed.
   */
  public List<String> lanesNotRunning() {
    return lanes.stream().flatMap(l -> l.problem().stream()).toList();
  }

  /** Stops every lane: no new deliveries, in-flight ones finish within {@code grace}. */
  public void stop(Duration grace) {
    synchronized (this) {
      stopped = true;
    }
    lanes.parallelStream().forEach(l -> l.stop(grace));
    parking.close();
  }

  private void subscribeEverywhere(String workflow) {
    if (lanes.stream().allMatch(l -> l.isSubscribed(workflow))) {
      return;
    }
    String queue = Names.orchestratorQueue(workflow);
    if (!queueExists(queue)) {
      if (missingQueuesLogged.add(workflow)) {
        LOG.info("Queue {} does not exist yet (is the Workflow Ready?); looking again every few seconds", queue);
      }
      return;
    }
    missingQueuesLogged.remove(workflow);
    boolean everywhere = true;
    for (Lane lane : lanes) {
      try {
        everywhere &= lane.subscribe(workflow, queue);
      } catch (IOException | RuntimeException e) {
        LOG.warn("Could not consume {} yet: {}", queue, e.toString());
        return;
      }
    }
    if (everywhere) {
      LOG.info("Consuming {} on {} thread(s)", queue, lanes.size());
    }
  }

  private boolean queueExists(String queue) {
    try {
      return BrokerObjects.queueExists(connection, queue);
    } catch (IOException | RuntimeException e) {
      LOG.debug("Cannot check queue {} now: {}", queue, e.toString());
      return false; // the broker is away: looked at again at the next reconcile
    }
  }
}
