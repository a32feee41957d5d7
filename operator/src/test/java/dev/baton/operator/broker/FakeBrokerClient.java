package dev.baton.operator.broker;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueSpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An in-memory broker for unit tests of the sync loop: the same semantics as the management API where the loop
 * depends on them (404 on delete is fine, if-empty deletes refuse queues with messages, deleting a queue or an
 * exchange removes its bindings), plus switches to make it unreachable.
 */
public final class FakeBrokerClient implements BrokerClient {

  public final Map<String, String> exchanges = new LinkedHashMap<>();
  public final Map<String, BrokerQueue> queues = new LinkedHashMap<>();
  public final Set<BindingSpec> bindings = new LinkedHashSet<>();
  public final Map<String, String> passwords = new HashMap<>();
  public final Map<String, PermissionSpec> permissions = new HashMap<>();
  public final Map<String, List<String>> tags = new HashMap<>();
  /** Every call that changed something, e.g. "declareQueue q.a.b". */
  public final List<String> writes = new ArrayList<>();
  /** Every listing of the queues and read of one queue, e.g. "queues", "queue q.a.b". */
  public final List<String> reads = new ArrayList<>();
  public boolean unreachable;
  /** Runs once the queues have been listed (and before the listing returns), as a write racing a listing would. */
  public Runnable afterListingQueues = () -> {};

  @Override
  public String vhost() {
    return "test";
  }

  @Override
  public List<BrokerExchange> exchanges() {
    check();
    return exchanges.entrySet().stream().map(e -> new BrokerExchange(e.getKey(), e.getValue())).toList();
  }

  @Override
  public void declareExchange(ExchangeSpec exchange) {
    write("declareExchange " + exchange.name());
    String existing = exchanges.putIfAbsent(exchange.name(), exchange.type().brokerName());
    if (existing != null && !existing.equals(exchange.type().brokerName())) {
      throw new BrokerException(BrokerException.Failure.REJECTED, "inequivalent exchange type");
    }
  }

  @Override
  public void deleteExchange(String name) {
    write("deleteExchange " + name);
    exchanges.remove(name);
    bindings.removeIf(b -> b.exchange().equals(name));
  }

  @Override
  public List<BrokerQueue> queues() {
    check();
    reads.add("queues");
    List<BrokerQueue> listed = List.copyOf(queues.values());
    afterListingQueues.run();
    return listed;
  }

  @Override
  public void declareQueue(QueueSpec queue) {
    write("declareQueue " + queue.name());
    BrokerQueue existing = queues.get(queue.name());
    if (existing != null && !existing.arguments().equals(queue.arguments())) {
      throw new BrokerException(BrokerException.Failure.REJECTED, "inequivalent arguments");
    }
    queues.putIfAbsent(queue.name(), new BrokerQueue(queue.name(), queue.arguments(), 0, 0));
  }

  @Override
  public void deleteQueue(String name) {
    write("deleteQueue " + name);
    queues.remove(name);
    bindings.removeIf(b -> b.queue().equals(name));
  }

  @Override
  public Optional<BrokerQueue> queue(String name) {
    check();
    reads.add("queue " + name);
    return Optional.ofNullable(queues.get(name));
  }

  /** As RabbitMQ: refused (400) on a quorum queue; kept when it holds ready messages or has consumers. */
  @Override
  public boolean deleteQueueIfIdle(String name) {
    check();
    BrokerQueue q = queues.get(name);
    if (q != null && "quorum".equals(q.arguments().get("x-queue-type"))) {
      throw new BrokerException(BrokerException.Failure.REJECTED, "if-empty and if-unused are not supported by "
          + "quorum queues (HTTP 400)");
    }
    if (q != null && (q.messages() - q.unacked() > 0 || q.consumers() > 0)) {
      return false;
    }
    deleteQueue(name);
    return true;
  }

  @Override
  public List<BrokerBinding> bindings() {
    check();
    return bindings.stream().map(b -> new BrokerBinding(b.exchange(), b.queue(), b.routingKey(), b.routingKey())).toList();
  }

  @Override
  public void bind(BindingSpec binding) {
    write("bind " + binding.exchange() + " " + binding.queue() + " " + binding.routingKey());
    if (!exchanges.containsKey(binding.exchange()) || !queues.containsKey(binding.queue())) {
      throw new BrokerException(BrokerException.Failure.REJECTED, "no such exchange or queue (404)");
    }
    bindings.add(binding);
  }

  @Override
  public void unbind(BrokerBinding binding) {
    write("unbind " + binding.exchange() + " " + binding.queue() + " " + binding.routingKey());
    bindings.remove(binding.spec());
  }

  @Override
  public List<BrokerUser> users() {
    check();
    return passwords.keySet().stream().map(n -> user(n).orElseThrow()).toList();
  }

  @Override
  public Optional<BrokerUser> user(String name) {
    check();
    return Optional.ofNullable(passwords.get(name))
        .map(p -> new BrokerUser(name, PasswordHash.hash(PasswordHash.SHA256, p), PasswordHash.SHA256,
            tags.getOrDefault(name, List.of())));
  }

  @Override
  public void putUser(String name, String password, List<String> userTags) {
    write("putUser " + name);
    passwords.put(name, password);
    tags.put(name, List.copyOf(userTags));
  }

  @Override
  public void deleteUser(String name) {
    write("deleteUser " + name);
    passwords.remove(name);
    permissions.remove(name);
    tags.remove(name);
  }

  @Override
  public Map<String, PermissionSpec> permissions() {
    check();
    return Map.copyOf(permissions);
  }

  @Override
  public Optional<PermissionSpec> permissions(String user) {
    check();
    return Optional.ofNullable(permissions.get(user));
  }

  @Override
  public void putPermissions(String user, PermissionSpec p) {
    write("putPermissions " + user);
    permissions.put(user, p);
  }

  /** Puts messages into a queue, as publishers would. */
  public void fill(String queue, long messages) {
    BrokerQueue q = queues.get(queue);
    queues.put(queue, new BrokerQueue(q.name(), q.arguments(), messages, q.unacked(), q.consumers()));
  }

  /** Sets what the broker reports for a queue: messages (ready and unacknowledged), unacknowledged, consumers. */
  public void counts(String queue, long messages, long unacked, int consumers) {
    BrokerQueue q = queues.get(queue);
    queues.put(queue, new BrokerQueue(q.name(), q.arguments(), messages, unacked, consumers));
  }

  /** A snapshot over this fake that lists it on every pass, so a test sees each change it makes at once. */
  public BrokerSnapshot snapshot() {
    return new BrokerSnapshot(this, java.time.Duration.ZERO, java.time.Clock.systemUTC());
  }

  private void write(String what) {
    check();
    writes.add(what);
  }

  private void check() {
    if (unreachable) {
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE, "cannot reach the fake broker");
    }
  }
}
