package dev.baton.operator.broker;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.operator.OperatorSettings;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operator's {@link BrokerClient}: exchanges, queues and bindings are declared and deleted over AMQP 0-9-1 on a
 * few pooled channels ({@link ChannelPool}); users, permissions and every listing go through the management API
 * ({@link HopBrokerClient}), which AMQP cannot do. A thousand WorkerServices are some twenty thousand declarations:
 * one HTTP request each was the management API's limit (it answered 502 under them), one AMQP round trip each is not
 * (docs/design.md#drift-and-scale).
 *
 * <p>The contract holds as over HTTP: declaring is idempotent, a declaration that differs from what exists (other
 * arguments, another exchange type) is refused with the broker's PRECONDITION_FAILED text as a REJECTED
 * {@link BrokerException}, and deleting what is already gone succeeds.
 */
public final class AmqpBrokerClient implements BrokerClient, AutoCloseable {

  private final BrokerClient management;
  private final ChannelPool channels;

  AmqpBrokerClient(BrokerClient management, ChannelPool channels) {
    this.management = management;
    this.channels = channels;
  }

  /** The client of {@code settings}: no request is made, no connection opened yet. */
  public static AmqpBrokerClient create(OperatorSettings settings) {
    BrokerClient management = HopBrokerClient.create(settings.managementUrl(), settings.adminUsername(),
        settings.adminPassword(), settings.vhost(), settings.caFile());
    return new AmqpBrokerClient(management, ChannelPool.to(URI.create(settings.declarationUrl()),
        settings.adminUsername(), settings.adminPassword(), settings.vhost(), settings.caFile()));
  }

  @Override
  public String vhost() {
    return management.vhost();
  }

  @Override
  public void declareExchange(ExchangeSpec exchange) {
    write("declaring exchange " + exchange.name(),
        ch -> ch.exchangeDeclare(exchange.name(), exchange.type().brokerName(), true), false);
  }

  @Override
  public void deleteExchange(String name) {
    write("deleting exchange " + name, ch -> ch.exchangeDelete(name), true);
  }

  @Override
  public void declareQueue(QueueSpec queue) {
    write("declaring queue " + queue.name(),
        ch -> ch.queueDeclare(queue.name(), true, false, false, new HashMap<>(queue.arguments())), false);
  }

  @Override
  public void deleteQueue(String name) {
    write("deleting queue " + name, ch -> ch.queueDelete(name), true);
  }

  @Override
  public boolean deleteQueueIfIdle(String name) {
    // PRECONDITION_FAILED: the broker holds messages in it, or a consumer, right now.
    return channels.run("deleting queue " + name + " if empty and unused", ch -> {
      ch.queueDelete(name, true, true);
      return true;
    }, code -> code == AMQP.NOT_FOUND ? Boolean.TRUE : code == AMQP.PRECONDITION_FAILED ? Boolean.FALSE : null);
  }

  @Override
  public void bind(BindingSpec binding) {
    write("binding " + binding.queue() + " to " + binding.exchange(),
        ch -> ch.queueBind(binding.queue(), binding.exchange(), binding.routingKey()), false);
  }

  @Override
  public void unbind(BrokerBinding binding) {
    // Baton's bindings have no arguments; a queue or exchange that is gone took the binding with it.
    write("unbinding " + binding.queue() + " from " + binding.exchange(),
        ch -> ch.queueUnbind(binding.queue(), binding.exchange(), binding.routingKey()), true);
  }

  /** @param goneIsDone for deletions: NOT_FOUND says it is gone already, which is what was asked */
  private void write(String what, ChannelPool.Request<?> request, boolean goneIsDone) {
    channels.run(what, ch -> {
      request.on(ch);
      return Boolean.TRUE;
    }, code -> goneIsDone && code == AMQP.NOT_FOUND ? Boolean.TRUE : null);
  }

  // --- through the management API ------------------------------------------------------------------------------

  @Override
  public List<BrokerExchange> exchanges() {
    return management.exchanges();
  }

  @Override
  public List<BrokerQueue> queues() {
    return management.queues();
  }

  @Override
  public Optional<BrokerQueue> queue(String name) {
    return management.queue(name);
  }

  @Override
  public List<BrokerBinding> bindings() {
    return management.bindings();
  }

  @Override
  public List<BrokerUser> users() {
    return management.users();
  }

  @Override
  public Optional<BrokerUser> user(String name) {
    return management.user(name);
  }

  @Override
  public void putUser(String name, String password, List<String> tags) {
    management.putUser(name, password, tags);
  }

  @Override
  public void deleteUser(String name) {
    management.deleteUser(name);
  }

  @Override
  public Map<String, PermissionSpec> permissions() {
    return management.permissions();
  }

  @Override
  public Optional<PermissionSpec> permissions(String user) {
    return management.permissions(user);
  }

  @Override
  public void putPermissions(String user, PermissionSpec permissions) {
    management.putPermissions(user, permissions);
  }

  /** Closes the AMQP connection (the management API's HTTP client holds nothing to close). */
  @Override
  public void close() {
    channels.close();
  }
}
