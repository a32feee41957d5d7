package dev.baton.operator.broker;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueSpec;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the operator needs from RabbitMQ, in the one vhost it manages, and nothing more: one request per method.
 * Reconciliations do not list the broker themselves: they read a shared {@link BrokerSnapshot}, which lists it once
 * per interval with these methods. Deleting something that is already gone succeeds. Every method throws
 * {@link BrokerException} on failure.
 */
public interface BrokerClient {

  /** The vhost every call works in. */
  String vhost();

  List<BrokerExchange> exchanges();

  /** Declares a durable exchange; fine when it exists with the same type. */
  void declareExchange(ExchangeSpec exchange);

  void deleteExchange(String name);

  /**
   * Every queue of the vhost, with the columns Baton reads (name, arguments, counts) and nothing else; the one method
   * that may take two requests (the management API lists the consumers apart from queues without statistics).
   */
  List<BrokerQueue> queues();

  /** One queue with its counts as the broker reports them now (sampled every few seconds), if it exists. */
  Optional<BrokerQueue> queue(String name);

  /** Declares a durable queue with its arguments; rejected when it exists with other arguments. */
  void declareQueue(QueueSpec queue);

  /** Deletes a queue and the messages in it. */
  void deleteQueue(String name);

  /**
   * Deletes a classic queue only if it holds no ready message and has no consumer, as the broker decides at that
   * moment. RabbitMQ refuses both conditions on quorum queues (HTTP 400): never call it for one.
   *
   * @return true when the queue is gone, false when the broker kept it
   */
  boolean deleteQueueIfIdle(String name);

  /** Bindings from exchanges to queues (not the default exchange's implicit ones). */
  List<BrokerBinding> bindings();

  void bind(BindingSpec binding);

  void unbind(BrokerBinding binding);

  /** Every broker user (users are not per vhost). */
  List<BrokerUser> users();

  Optional<BrokerUser> user(String name);

  /** Creates the user, or sets its password; the user gets no tags (no management access). */
  default void putUser(String name, String password) {
    putUser(name, password, List.of());
  }

  /** Creates the user, or sets its password and tags (e.g. {@code management} for read access to queue statistics). */
  void putUser(String name, String password, List<String> tags);

  void deleteUser(String name);

  /** The permissions of every user in {@link #vhost()}, by user. */
  Map<String, PermissionSpec> permissions();

  /** The user's permissions in {@link #vhost()}, if it has any. */
  Optional<PermissionSpec> permissions(String user);

  void putPermissions(String user, PermissionSpec permissions);
}
