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

/** The real broker client, counting how often the operator lists the broker's queues (its costliest request). */
public final class CountingBroker implements BrokerClient {

  private final BrokerClient delegate;
  public final AtomicInteger queueListings = new AtomicInteger();

  public CountingBroker(BrokerClient delegate) {
    this.delegate = delegate;
  }

  @Override
  public String vhost() {
    return delegate.vhost();
  }

  @Override
  public List<BrokerExchange> exchanges() {
    return delegate.exchanges();
  }

  @Override
  public void declareExchange(ExchangeSpec exchange) {
    delegate.declareExchange(exchange);
  }

  @Override
  public void deleteExchange(String name) {
    delegate.deleteExchange(name);
  }

  @Override
  public List<BrokerQueue> queues() {
    queueListings.incrementAndGet();
    return delegate.queues();
  }

  @Override
  public void declareQueue(QueueSpec queue) {
    delegate.declareQueue(queue);
  }

  @Override
  public void deleteQueue(String name) {
    delegate.deleteQueue(name);
  }

  @Override
  public boolean deleteQueueIfEmpty(String name) {
    return delegate.deleteQueueIfEmpty(name);
  }

  @Override
  public List<BrokerBinding> bindings() {
    return delegate.bindings();
  }

  @Override
  public void bind(BindingSpec binding) {
    delegate.bind(binding);
  }

  @Override
  public void unbind(BrokerBinding binding) {
    delegate.unbind(binding);
  }

  @Override
  public Optional<BrokerUser> user(String name) {
    return delegate.user(name);
  }

  @Override
  public void putUser(String name, String password, List<String> tags) {
    delegate.putUser(name, password, tags);
  }

  @Override
  public void deleteUser(String name) {
    delegate.deleteUser(name);
  }

  @Override
  public Optional<PermissionSpec> permissions(String user) {
    return delegate.permissions(user);
  }

  @Override
  public void putPermissions(String user, PermissionSpec permissions) {
    delegate.putPermissions(user, permissions);
  }
}
