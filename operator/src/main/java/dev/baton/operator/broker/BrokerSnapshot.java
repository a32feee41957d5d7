package dev.baton.operator.broker;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueSpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The vhost's exchanges, queues, bindings, users and permissions as of one listing, shared by every reconciliation:
 * the operator lists the broker (six requests, with only the columns it reads) at most once per {@code maxAge},
 * however many resources it keeps, instead of once per resource and pass. Every write goes through here, to the
 * broker and then into the snapshot, so a pass sees what earlier passes did without listing again.
 *
 * <p>What may be stale, and why that is safe: an object deleted behind the operator's back shows up missing at the
 * next listing (so drift is repaired within {@code maxAge} plus one resync); an object the snapshot believes missing
 * is declared again, which the broker takes as a no-op. Counts are never trusted for a decision that could lose
 * messages: such decisions ask the broker for that one queue ({@link #queueNow}). A listing that runs while passes
 * write is brought up to date with the writes made meanwhile before it replaces the snapshot.
 */
public final class BrokerSnapshot {

  /** After a failed listing, passes fail at once with its error for this long instead of all listing again. */
  private static final Duration FAILURE_HOLD = Duration.ofSeconds(1);

  private final BrokerClient broker;
  private final Duration maxAge;
  private final Clock clock;
  private final ReentrantLock refreshing = new ReentrantLock();
  private volatile State state;
  private volatile Instant listedAt;
  private volatile BrokerException lastFailure;
  private volatile Instant failedAt;
  /** Writes made while a listing runs, re-applied to it; null when no listing runs. Guarded by {@code this}. */
  private List<Consumer<State>> pending;
  private long listings;

  public BrokerSnapshot(BrokerClient broker, Duration maxAge, Clock clock) {
    this.broker = broker;
    this.maxAge = maxAge;
    this.clock = clock;
  }

  public String vhost() {
    return broker.vhost();
  }

  /** How many times the broker was listed (for tests and metrics). */
  public synchronized long listings() {
    return listings;
  }

  /**
   * Lists the broker again if the snapshot is older than {@code maxAge}; called at the start of every pass. One caller
   * lists; the others go on with the listing they have meanwhile (its writes reach the new one), so that passes do not
   * all stop for as long as a listing takes, which grows with the vhost (seconds at tens of thousands of queues). They
   * wait only when there is no listing yet, or the last one failed.
   *
   * @throws BrokerException when the broker cannot be listed
   */
  public void refreshIfStale() {
    if (isFresh()) {
      return;
    }
    if (!refreshing.tryLock()) {
      if (state != null && lastFailure == null) {
        return; // another pass lists: this one reads the last listing, as it would have a moment ago
      }
      refreshing.lock();
    }
    try {
      if (isFresh()) {
        return;
      }
      BrokerException failure = lastFailure;
      if (failure != null && clock.instant().isBefore(failedAt.plus(FAILURE_HOLD))) {
        throw new BrokerException(failure.failure(), failure.getMessage(), failure);
      }
      Instant started = clock.instant();
      synchronized (this) {
        pending = new ArrayList<>();
      }
      State listed;
      try {
        listed = State.list(broker);
      } catch (BrokerException e) {
        synchronized (this) {
          pending = null;
        }
        lastFailure = e;
        failedAt = clock.instant();
        throw e;
      }
      synchronized (this) {
        pending.forEach(w -> w.accept(listed));
        pending = null;
        state = listed;
        listings++;
      }
      listedAt = started;
      lastFailure = null;
    } finally {
      refreshing.unlock();
    }
  }

  /** Forgets the snapshot: the next pass lists the broker (e.g. after the broker refused a write as stale). */
  public void invalidate() {
    listedAt = null;
  }

  private boolean isFresh() {
    Instant at = listedAt;
    return at != null && state != null && clock.instant().isBefore(at.plus(maxAge));
  }

  private State state() {
    State s = state;
    if (s == null) {
      throw new IllegalStateException("the broker snapshot is read before the first refreshIfStale()");
    }
    return s;
  }

  // --- reads ----------------------------------------------------------------------------------------------------

  public Optional<BrokerExchange> exchange(String name) {
    return Optional.ofNullable(state().exchanges.get(name));
  }

  public Optional<BrokerQueue> queue(String name) {
    return Optional.ofNullable(state().queues.get(name));
  }

  /** The queues whose name starts with {@code prefix}, in name order. */
  public List<BrokerQueue> queuesStartingWith(String prefix) {
    return List.copyOf(state().queues.subMap(prefix, prefix + Character.MAX_VALUE).values());
  }

  /** The bindings whose destination is {@code queue}. */
  public List<BrokerBinding> bindingsTo(String queue) {
    Set<BrokerBinding> bindings = state().bindings.get(queue);
    return bindings == null ? List.of() : List.copyOf(bindings);
  }

  public Optional<BrokerUser> user(String name) {
    return Optional.ofNullable(state().users.get(name));
  }

  public Optional<PermissionSpec> permissions(String user) {
    return Optional.ofNullable(state().permissions.get(user));
  }

  /** One queue as the broker reports it now (one request), for decisions that must not lose messages. */
  public Optional<BrokerQueue> queueNow(String name) {
    Optional<BrokerQueue> now = broker.queue(name);
    record(s -> now.ifPresentOrElse(q -> s.queues.put(name, q), () -> s.removeQueue(name)));
    return now;
  }

  // --- writes: to the broker, then into the snapshot --------------------------------------------------------------

  public void declareExchange(ExchangeSpec exchange) {
    broker.declareExchange(exchange);
    record(s -> s.exchanges.put(exchange.name(), new BrokerExchange(exchange.name(), exchange.type().brokerName())));
  }

  public void deleteExchange(String name) {
    broker.deleteExchange(name);
    record(s -> {
      s.exchanges.remove(name);
      s.bindings.values().forEach(set -> set.removeIf(b -> b.exchange().equals(name)));
    });
  }

  public void declareQueue(QueueSpec queue) {
    broker.declareQueue(queue);
    record(s -> s.queues.putIfAbsent(queue.name(), BrokerQueue.declared(queue.name(), queue.arguments())));
  }

  public void deleteQueue(String name) {
    broker.deleteQueue(name);
    record(s -> s.removeQueue(name));
  }

  /** @see BrokerClient#deleteQueueIfIdle */
  public boolean deleteQueueIfIdle(String name) {
    boolean deleted = broker.deleteQueueIfIdle(name);
    if (deleted) {
      record(s -> s.removeQueue(name));
    }
    return deleted;
  }

  public void bind(BindingSpec binding) {
    broker.bind(binding);
    // Baton's bindings have no arguments: the properties key is the routing key (or "~" for an empty one).
    BrokerBinding added = new BrokerBinding(binding.exchange(), binding.queue(), binding.routingKey(),
        binding.routingKey().isEmpty() ? "~" : binding.routingKey());
    record(s -> s.bindings.computeIfAbsent(binding.queue(), q -> ConcurrentHashMap.newKeySet()).add(added));
  }

  public void unbind(BrokerBinding binding) {
    broker.unbind(binding);
    record(s -> {
      Set<BrokerBinding> set = s.bindings.get(binding.queue());
      if (set != null) {
        set.removeIf(b -> b.spec().equals(binding.spec()));
      }
    });
  }

  /** Sets the user; the snapshot records a hash of the password as the broker would store it, never the password. */
  public void putUser(String name, String password, List<String> tags) {
    broker.putUser(name, password, tags);
    BrokerUser user = new BrokerUser(name, PasswordHash.hash(PasswordHash.SHA256, password), PasswordHash.SHA256, tags);
    record(s -> s.users.put(name, user));
  }

  public void deleteUser(String name) {
    broker.deleteUser(name);
    record(s -> {
      s.users.remove(name);
      s.permissions.remove(name);
    });
  }

  public void putPermissions(String user, PermissionSpec permissions) {
    broker.putPermissions(user, permissions);
    record(s -> s.permissions.put(user, permissions));
  }

  private synchronized void record(Consumer<State> write) {
    if (state != null) {
      write.accept(state);
    }
    if (pending != null) {
      pending.add(write);
    }
  }

  /** One listing, indexed as the passes read it. */
  private static final class State {
    final ConcurrentMap<String, BrokerExchange> exchanges = new ConcurrentHashMap<>();
    final ConcurrentSkipListMap<String, BrokerQueue> queues = new ConcurrentSkipListMap<>();
    final ConcurrentMap<String, Set<BrokerBinding>> bindings = new ConcurrentHashMap<>();
    final ConcurrentMap<String, BrokerUser> users = new ConcurrentHashMap<>();
    final ConcurrentMap<String, PermissionSpec> permissions = new ConcurrentHashMap<>();

    static State list(BrokerClient broker) {
      State s = new State();
      broker.exchanges().forEach(e -> s.exchanges.put(e.name(), e));
      broker.queues().forEach(q -> s.queues.put(q.name(), q));
      broker.bindings().forEach(b -> s.bindings.computeIfAbsent(b.queue(), q -> ConcurrentHashMap.newKeySet()).add(b));
      broker.users().forEach(u -> s.users.put(u.name(), u));
      s.permissions.putAll(broker.permissions());
      return s;
    }

    void removeQueue(String name) {
      queues.remove(name);
      bindings.remove(name);
    }
  }
}
