package dev.baton.operator.topology;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.QueueArguments;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.contract.topology.QueueType;
import dev.baton.operator.broker.BrokerBinding;
import dev.baton.operator.broker.BrokerException;
import dev.baton.operator.broker.BrokerSnapshot;
import dev.baton.operator.broker.BrokerQueue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The one reconcile loop for the broker side, shared by every kind: compare what an owner wants with what the broker
 * has, by name, and converge. Level-based and idempotent, so the same pass creates, repairs drift and cleans up.
 *
 * <p>Rules that keep messages safe:
 * <ul>
 *   <li>An existing object whose immutable properties differ from the plan is left alone and reported
 *       ({@link ImmutableMismatch}); everything else is still applied.</li>
 *   <li>New bindings are added before stale ones are removed: during a change a message may be routed twice
 *       (workers are idempotent), never nowhere.</li>
 *   <li>A queue the plan no longer lists is deleted only when the broker says it is empty; until then it is
 *       reported as draining and keeps the binding that addresses it by name, so a worker still on the old plan
 *       can publish a retry into it.</li>
 * </ul>
 *
 * <p>It reads the shared {@link BrokerSnapshot}, not the broker: a pass over a resource whose objects are all in place
 * sends no request at all. Only what could lose messages asks the broker about that one queue first.
 */
public final class TopologySync {

  private final BrokerSnapshot broker;

  public TopologySync(BrokerSnapshot broker) {
    this.broker = broker;
  }

  public SyncReport apply(DesiredTopology desired, Ownership ownership) {
    return apply(desired, ownership, true);
  }

  /**
   * @param unbindUnplanned false while it is not known which bindings beyond the plan are still needed (a Workflow's
   *     older revisions before the runtime has told their routes): then nothing is unbound
   */
  public SyncReport apply(DesiredTopology desired, Ownership ownership, boolean unbindUnplanned) {
    broker.refreshIfStale();
    List<String> actions = new ArrayList<>();
    List<ImmutableMismatch> mismatches = new ArrayList<>();
    declareExchanges(desired, mismatches, actions);
    List<BrokerQueue> ownedBefore = ownership.queuesIn(broker);
    Map<String, BrokerQueue> found = declareQueues(desired, mismatches, actions);

    Set<String> queueNames = new LinkedHashSet<>(found.keySet());
    ownedBefore.forEach(q -> queueNames.add(q.name()));
    List<BrokerBinding> owned = queueNames.stream().flatMap(q -> broker.bindingsTo(q).stream()).toList();
    Set<BindingSpec> wanted = new LinkedHashSet<>(desired.bindings());
    Set<BindingSpec> present = owned.stream().map(BrokerBinding::spec).collect(Collectors.toSet());
    for (BindingSpec b : wanted) {
      if (!present.contains(b)) {
        broker.bind(b);
        actions.add("bound " + b.queue() + " to " + b.exchange() + " with '" + b.routingKey() + "'");
      }
    }

    Set<String> planned = found.keySet();
    Set<String> deleted = new HashSet<>();
    List<BrokerQueue> draining = new ArrayList<>();
    for (BrokerQueue q : ownedBefore) {
      if (planned.contains(q.name())) {
        continue;
      }
      Optional<BrokerQueue> kept = deleteIfIdle(q);
      if (kept.isEmpty()) {
        deleted.add(q.name());
        actions.add("deleted queue " + q.name() + ", which the spec no longer lists");
      } else {
        draining.add(kept.get());
      }
    }
    Set<String> drainingNames = draining.stream().map(BrokerQueue::name).collect(Collectors.toSet());
    for (BrokerBinding b : owned) {
      boolean addressedByName = drainingNames.contains(b.queue()) && b.routingKey().equals(b.queue());
      if (unbindUnplanned && !wanted.contains(b.spec()) && !deleted.contains(b.queue()) && !addressedByName) {
        broker.unbind(b);
        actions.add("unbound " + b.queue() + " from " + b.exchange() + " ('" + b.routingKey() + "')");
      }
    }
    return new SyncReport(found, mismatches, draining, actions);
  }

  /**
   * Removes what an owner has on the broker.
   *
   * @param retainMessages true for deletion policy Retain: queues that hold messages are kept, and so are the
   *     exchanges (and, while retry tiers hold messages, the consumer queues) their messages return through
   */
  public RemovalReport remove(Ownership ownership, boolean retainMessages) {
    broker.refreshIfStale();
    List<String> deleted = new ArrayList<>();
    List<BrokerQueue> retained = new ArrayList<>();
    // Retry tiers first: what they keep comes back to the consumer queues once its TTL expires.
    List<BrokerQueue> queues = ownership.queuesIn(broker).stream()
        .sorted(Comparator.comparing((BrokerQueue q) -> ownership.roleOf(q.name()).orElseThrow() != QueueSpec.Role.RETRY_TIER))
        .toList();
    boolean tiersHoldMessages = false;
    for (BrokerQueue q : queues) {
      QueueSpec.Role role = ownership.roleOf(q.name()).orElseThrow();
      if (!retainMessages) {
        broker.deleteQueue(q.name());
        deleted.add(q.name());
      } else if (tiersHoldMessages && role == QueueSpec.Role.CONSUMER) {
        retained.add(q);
      } else {
        Optional<BrokerQueue> kept = deleteIfIdle(q);
        if (kept.isEmpty()) {
          deleted.add(q.name());
        } else {
          retained.add(kept.get());
          tiersHoldMessages |= role == QueueSpec.Role.RETRY_TIER;
        }
      }
    }
    if (retained.isEmpty()) {
      for (String e : ownership.exchanges()) {
        if (broker.exchange(e).isPresent()) {
          broker.deleteExchange(e);
          deleted.add(e);
        }
      }
    }
    return new RemovalReport(deleted, retained);
  }

  /**
   * Deletes a queue the plan no longer lists if the broker says, for that queue and now, that it is idle. A classic
   * queue is deleted "if empty and unused", which the broker decides exactly (its counts in the management API may
   * be seconds old, or not collected yet for a new queue); counts that say otherwise keep it without asking.
   *
   * @return empty when it is gone, else the queue as it stays
   */
  private Optional<BrokerQueue> deleteIfIdle(BrokerQueue listed) {
    Optional<BrokerQueue> now = broker.queueNow(listed.name());
    if (now.isEmpty()) {
      return Optional.empty();
    }
    BrokerQueue q = now.get();
    if (!isQuorum(q) && !q.holdsOrServes() && broker.deleteQueueIfIdle(q.name())) {
      return Optional.empty();
    }
    return Optional.of(q);
  }

  private static boolean isQuorum(BrokerQueue q) {
    return QueueType.QUORUM.argument().equals(q.arguments().get(QueueArguments.QUEUE_TYPE));
  }

  private void declareExchanges(DesiredTopology desired, List<ImmutableMismatch> mismatches, List<String> actions) {
    for (ExchangeSpec e : desired.exchanges()) {
      Optional<String> type = broker.exchange(e.name()).map(x -> x.type());
      if (type.isEmpty()) {
        broker.declareExchange(e);
        actions.add("declared exchange " + e.name());
      } else if (!e.type().brokerName().equals(type.get())) {
        mismatches.add(new ImmutableMismatch(ImmutableMismatch.Kind.EXCHANGE, e.name(), "type", type.get(),
            e.type().brokerName()));
      }
    }
    for (String name : desired.foreignExchanges()) {
      if (broker.exchange(name).isEmpty()) {
        // Another service's event exchange, declared as that service will: its own reconciliation finds it in place.
        broker.declareExchange(new ExchangeSpec(name, ExchangeSpec.Type.TOPIC));
        actions.add("declared exchange " + name + " (of another service) to bind to it");
      }
    }
  }

  private Map<String, BrokerQueue> declareQueues(DesiredTopology desired, List<ImmutableMismatch> mismatches,
      List<String> actions) {
    Map<String, BrokerQueue> found = new LinkedHashMap<>();
    for (QueueSpec q : desired.queues()) {
      Optional<BrokerQueue> current = broker.queue(q.name());
      if (current.isEmpty()) {
        try {
          broker.declareQueue(q);
        } catch (BrokerException e) {
          // Most likely the queue exists with other arguments since the last listing: look again next pass.
          broker.invalidate();
          throw e;
        }
        actions.add("declared queue " + q.name());
        found.put(q.name(), BrokerQueue.declared(q.name(), q.arguments()));
      } else {
        found.put(q.name(), current.get());
        compareArguments(q, current.get(), mismatches);
      }
    }
    return found;
  }

  private static void compareArguments(QueueSpec desired, BrokerQueue actual, List<ImmutableMismatch> mismatches) {
    Set<String> keys = new TreeSet<>(desired.arguments().keySet());
    keys.addAll(actual.arguments().keySet());
    for (String key : keys) {
      Object want = desired.arguments().get(key);
      Object have = actual.arguments().get(key);
      if (have == null && QueueArguments.ADDED_LATER.contains(key)) {
        continue; // declared by an older Baton: used as it is (QueueArguments.ADDED_LATER says why)
      }
      if (!Objects.equals(normalise(want), normalise(have))) {
        mismatches.add(new ImmutableMismatch(ImmutableMismatch.Kind.QUEUE, desired.name(), key, have, want));
      }
    }
  }

  /** JSON gives back 30000 as an Integer where the plan holds a Long. */
  private static Object normalise(Object value) {
    return value instanceof Number n ? new BigDecimal(n.toString()).stripTrailingZeros() : value;
  }
}
