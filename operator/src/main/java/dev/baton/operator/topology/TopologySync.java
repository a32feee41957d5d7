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
import dev.baton.contract.Names;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
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
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
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

  /**
   * How long a quorum queue stays unbound before it is deleted: longer than the management API's statistics
   * interval (5 s by default), so the counts read then include every message routed to it before the unbinding.
   */
  static final Duration QUORUM_SETTLE = Duration.ofSeconds(12);

  private final BrokerSnapshot broker;
  private final Clock clock;
  /** Quorum queues unbound to be deleted, and when. */
  private final Map<String, Instant> unbound = new ConcurrentHashMap<>();

  public TopologySync(BrokerSnapshot broker) {
    this(broker, Clock.systemUTC());
  }

  public TopologySync(BrokerSnapshot broker, Clock clock) {
    this.broker = broker;
    this.clock = clock;
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
      Retirement r = retire(q, actions);
      if (r.gone()) {
        deleted.add(q.name());
        actions.add("deleted queue " + q.name() + ", which the spec no longer lists");
      } else {
        draining.add(r.queue());
      }
    }
    Set<String> drainingNames = draining.stream().map(BrokerQueue::name).collect(Collectors.toSet());
    for (BrokerBinding b : owned) {
      boolean addressedByName = drainingNames.contains(b.queue()) && b.routingKey().equals(b.queue());
      boolean stillBound = broker.bindingsTo(b.queue()).contains(b);
      if (unbindUnplanned && stillBound && !wanted.contains(b.spec()) && !deleted.contains(b.queue())
          && !addressedByName) {
        broker.unbind(b);
        actions.add("unbound " + b.queue() + " from " + b.exchange() + " ('" + b.routingKey() + "')");
      }
    }
    return new SyncReport(found, mismatches, draining, actions);
  }

  /**
   * Unbinds the owner's queues, at once, from what {@code unwanted} picks: bindings that must go whatever a plan says
   * (a withdrawn grant), also while the plan itself cannot be applied.
   *
   * @return what was unbound, for the log
   */
  public List<String> unbind(Ownership ownership, Predicate<BrokerBinding> unwanted) {
    broker.refreshIfStale();
    List<String> actions = new ArrayList<>();
    for (BrokerQueue q : ownership.queuesIn(broker)) {
      for (BrokerBinding b : broker.bindingsTo(q.name())) {
        if (unwanted.test(b)) {
          broker.unbind(b);
          actions.add("unbound " + b.queue() + " from " + b.exchange() + " ('" + b.routingKey() + "')");
        }
      }
    }
    return actions;
  }

  /**
   * Removes what an owner has on the broker.
   *
   * @param retainMessages true for deletion policy Retain: queues that hold messages are kept, and so are the
   *     exchanges (and, while retry tiers hold messages, the consumer queues) their messages return through
   */
  public RemovalReport remove(Ownership ownership, boolean retainMessages) {
    broker.refreshIfStale();
    List<String> actions = new ArrayList<>();
    List<String> deleted = new ArrayList<>();
    List<BrokerQueue> retained = new ArrayList<>();
    List<String> retiring = new ArrayList<>();
    // Retry tiers first: what they keep comes back to the consumer queues once its TTL expires.
    List<BrokerQueue> queues = ownership.queuesIn(broker).stream()
        .sorted(Comparator.comparing((BrokerQueue q) -> ownership.roleOf(q.name()).orElseThrow() != QueueSpec.Role.RETRY_TIER))
        .toList();
    Set<String> exchangesOwned = ownership.exchanges();
    Set<String> returningTo = new HashSet<>();
    for (BrokerQueue q : queues) {
      QueueSpec.Role role = ownership.roleOf(q.name()).orElseThrow();
      if (!retainMessages) {
        broker.deleteQueue(q.name());
        deleted.add(q.name());
        continue;
      }
      boolean tierReturnsHere = role == QueueSpec.Role.CONSUMER && returningTo.contains(q.name());
      Retirement r = tierReturnsHere ? Retirement.kept(q) : retire(q, actions);
      if (r.gone()) {
        deleted.add(q.name());
      } else if (r.settling()) {
        retiring.add(q.name());
      } else {
        retained.add(r.queue());
        if (role == QueueSpec.Role.RETRY_TIER) {
          returningTo.add(tierTarget(q));
        }
        // Retained, it must stop filling up: nothing routes to it any more, but for the command exchange's binding
        // of a command queue whose retry tiers still hold messages (they come back to it through that binding).
        for (BrokerBinding b : broker.bindingsTo(q.name())) {
          boolean returnPath = tierReturnsHere && exchangesOwned.contains(b.exchange());
          if (!returnPath) {
            broker.unbind(b);
          }
        }
      }
    }
    if (retained.isEmpty() && retiring.isEmpty()) {
      for (String e : ownership.exchanges()) {
        if (broker.exchange(e).isPresent()) {
          broker.deleteExchange(e);
          deleted.add(e);
        }
      }
    }
    return new RemovalReport(deleted, retained, retiring);
  }

  /**
   * Deletes a queue no longer wanted once the broker says, for that queue and now, that it holds no message and has no
   * consumer. A classic queue goes with "if empty and unused", which the broker decides exactly (its counts in the
   * management API may be seconds old, or not collected yet for a new queue). RabbitMQ refuses both conditions on a
   * quorum queue (HTTP 400), so one whose counts are all known and zero is first unbound — nothing can reach it any
   * more — and deleted on a later pass, once the statistics are newer than the unbinding and still say idle.
   */
  private Retirement retire(BrokerQueue listed, List<String> actions) {
    Optional<BrokerQueue> now = broker.queueNow(listed.name());
    if (now.isEmpty()) {
      unbound.remove(listed.name());
      return Retirement.deleted();
    }
    BrokerQueue q = now.get();
    if (!isQuorum(q)) {
      return !q.holdsOrServes() && broker.deleteQueueIfIdle(q.name()) ? Retirement.deleted() : Retirement.kept(q);
    }
    if (q.holdsOrServes()) {
      return Retirement.kept(q);
    }
    if (!q.isIdle()) {
      return Retirement.settling(q); // counts not collected yet: look again
    }
    Instant unboundAt = unbound.get(q.name());
    if (unboundAt == null) {
      broker.bindingsTo(q.name()).forEach(broker::unbind);
      unbound.put(q.name(), clock.instant());
      actions.add("unbound quorum queue " + q.name() + " to delete it once the broker still finds it empty");
      return Retirement.settling(q);
    }
    if (clock.instant().isBefore(unboundAt.plus(QUORUM_SETTLE))) {
      return Retirement.settling(q);
    }
    broker.deleteQueue(q.name());
    unbound.remove(q.name());
    return Retirement.deleted();
  }

  /** The consumer queue a retry tier {@code q.retry.S.C.<d>} returns its messages to ({@code q.S.C}). */
  private static String tierTarget(BrokerQueue tier) {
    String[] parts = tier.name().split("\\.");
    return Names.consumerQueue(parts[2], parts[3]);
  }

  /**
   * What became of a queue to retire: gone; kept because it holds messages or has consumers; or (a quorum queue)
   * unbound and waiting to be deleted.
   */
  private record Retirement(BrokerQueue queue, boolean gone, boolean settling) {
    static Retirement deleted() {
      return new Retirement(null, true, false);
    }

    static Retirement kept(BrokerQueue q) {
      return new Retirement(q, false, false);
    }

    static Retirement settling(BrokerQueue q) {
      return new Retirement(q, false, true);
    }
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
