package dev.baton.operator.broker;

import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueSpec;
import java.util.List;
import java.util.Optional;

/**
 * What the reconcilers need from RabbitMQ, in the one vhost the operator manages, and nothing more. Deleting
 * something that is already gone succeeds. Every method throws {@link BrokerException} on failure.
 */
public interface BrokerClient {

  /** The vhost every call works in. */
  String vhost();

  List<BrokerExchange> exchanges();

  /** Declares a durable exchange; fine when it exists with the same type. */
  void declareExchange(ExchangeSpec exchange);

  void deleteExchange(String name);

  List<BrokerQueue> queues();

  /** Declares a durable queue with its arguments; rejected when it exists with other arguments. */
  void declareQueue(QueueSpec queue);

  /** Deletes a queue and the messages in it. */
  void deleteQueue(String name);

  /**
   * Deletes a queue only if it holds no messages, as decided by the broker at that moment (the counts of
   * {@link #queues()} may be seconds old).
   *
   * @return true when the queue is gone, false when the broker kept it because it holds messages
   */
  boolean deleteQueueIfEmpty(String name);

  /** Bindings from exchanges to queues (not the default exchange's implicit ones). */
  List<BrokerBinding> bindings();

  void bind(BindingSpec binding);

  void unbind(BrokerBinding binding);

  Optional<BrokerUser> user(String name);

  /** Creates the user, or sets its password; the user gets no tags (no management access). */
  default void putUser(String name, String password) {
    putUser(name, password, List.of());
  }

  /** Creates the user, or sets its password and tags (e.g. {@code management} for read access to queue statistics). */
  void putUser(String name, String password, List<String> tags);

  void deleteUser(String name);

  /** The user's permissions in {@link #vhost()}, if it has any. */
  Optional<PermissionSpec> permissions(String user);

  void putPermissions(String user, PermissionSpec permissions);
}
