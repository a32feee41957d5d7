package dev.baton.operator.it;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.operator.broker.BrokerBinding;
import dev.baton.operator.broker.BrokerClient;
import dev.baton.operator.broker.BrokerExchange;
import dev.baton.operator.broker.BrokerQueue;
import dev.baton.operator.broker.BrokerUser;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The real broker client, counting the operator's requests: each method is one request to the management API. How
 * often it lists the queues (its costliest request) is counted apart.
 */
public final class CountingBroker implements BrokerClient {

  private final BrokerClient delegate;
  public final AtomicInteger queueListings = new AtomicInteger();
  /** Every request, of any kind. */
  public final AtomicInteger requests = new AtomicInteger();

  public CountingBroker(BrokerClient delegate) {
    this.delegate = delegate;
  }

  @Override
  public String vhost() {
    return delegate.vhost();
  }

  @Override
  public List<BrokerExchange> exchanges() {
    requests.incrementAndGet();
    return delegate.exchanges();
  }

  @Override
  public void declareExchange(ExchangeSpec exchange) {
    requests.incrementAndGet();
    delegate.declareExchange(exchange);
  }

  @Override
  public void deleteExchange(String name) {
    requests.incrementAndGet();
    delegate.deleteExchange(name);
  }

  @Override
  public List<BrokerQueue> queues() {
    requests.incrementAndGet();
    queueListings.incrementAndGet();
    return delegate.queues();
  }

  @Override
  public void declareQueue(QueueSpec queue) {
    requests.incrementAndGet();
    delegate.declareQueue(queue);
  }

  @Override
  public void deleteQueue(String name) {
    requests.incrementAndGet();
    delegate.deleteQueue(name);
  }

  @Override
  public Optional<BrokerQueue> queue(String name) {
    requests.incrementAndGet();
    return delegate.queue(name);
  }

  @Override
  public boolean deleteQueueIfIdle(String name) {
    requests.incrementAndGet();
    return delegate.deleteQueueIfIdle(name);
  }

  @Override
  public List<BrokerBinding> bindings() {
    requests.incrementAndGet();
    return delegate.bindings();
  }

  @Override
  public void bind(BindingSpec binding) {
    requests.incrementAndGet();
    delegate.bind(binding);
  }

  @Override
  public void unbind(BrokerBinding binding) {
    requests.incrementAndGet();
    delegate.unbind(binding);
  }

  @Override
  public List<BrokerUser> users() {
    requests.incrementAndGet();
    return delegate.users();
  }

  @Override
  public Optional<BrokerUser> user(String name) {
    requests.incrementAndGet();
    return delegate.user(name);
  }

  @Override
  public void putUser(String name, String password, List<String> tags) {
    requests.incrementAndGet();
    delegate.putUser(name, password, tags);
  }

  @Override
  public void deleteUser(String name) {
    requests.incrementAndGet();
    delegate.deleteUser(name);
  }

  @Override
  public java.util.Map<String, PermissionSpec> permissions() {
    requests.incrementAndGet();
    return delegate.permissions();
  }

  @Override
  public Optional<PermissionSpec> permissions(String user) {
    requests.incrementAndGet();
    return delegate.permissions(user);
  }

  @Override
  public void putPermissions(String user, PermissionSpec permissions) {
    requests.incrementAndGet();
    delegate.putPermissions(user, permissions);
  }
}
