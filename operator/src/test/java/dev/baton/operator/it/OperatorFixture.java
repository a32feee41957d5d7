package dev.baton.operator.it;

import static org.awaitility.Awaitility.await;

import com.rabbitmq.http.client.Client;
import dev.baton.api.v1alpha1.BatonStatus;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.broker.AmqpBrokerClient;
import dev.baton.operator.broker.BrokerClient;
import dev.baton.sandbox.LocalServices;
import dev.baton.sandbox.MockKubernetes;
import dev.baton.sandbox.RabbitVhost;
import dev.baton.sandbox.Sandbox;
import dev.baton.testing.ResourceEdits;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * One operator per test class over the shared {@link Sandbox}: the mock API server (CRUD mode, server-side apply
 * off) with Baton's CRDs and a fresh vhost on the real broker. Broker users get a prefix unique to the fixture and
 * are deleted on close.
 */
public final class OperatorFixture implements AutoCloseable {

  public static final Duration RESYNC = Duration.ofSeconds(2);
  /** Comfortably more than one resync plus the management API's statistics interval. */
  public static final Duration WITHIN = Duration.ofSeconds(20);

  private final Sandbox stack;
  public final KubernetesMockServer server;
  public final KubernetesClient client;
  public final RabbitVhost vhost;
  public final Client management;
  public final OperatorSettings settings;
  public final BatonOperator operator;

  private OperatorFixture(Sandbox stack, UnaryOperator<OperatorSettings> adjust, UnaryOperator<BrokerClient> broker) {
    this.stack = stack;
    this.server = stack.kubernetes().server();
    this.client = stack.client();
    this.vhost = stack.vhost();
    this.management = vhost.management();
    this.settings = adjust.apply(OperatorSettings.localDefaults().toBuilder()
        .managementUrl(LocalServices.RABBITMQ_MANAGEMENT_URL)
        .admin(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD)
        .amqp(LocalServices.RABBITMQ_HOST, LocalServices.RABBITMQ_PORT)
        .vhost(vhost.name()).userPrefix(stack.userPrefix()).resync(RESYNC).serverSideApply(false)
        .build());
    // The broker client the operator's start opens, owned by the stack so that a wrapper (counting) can sit on it.
    this.operator = stack.own(BatonOperator.start(client, settings,
        broker.apply(stack.own(AmqpBrokerClient.create(settings)))));
  }

  public static OperatorFixture start(String name) {
    return start(name, UnaryOperator.identity());
  }

  /** @param adjust changes to the settings, e.g. another management URL */
  public static OperatorFixture start(String name, UnaryOperator<OperatorSettings> adjust) {
    return start(name, adjust, null, UnaryOperator.identity());
  }

  /**
   * @param expectations canned answers the CRUD mock cannot give (e.g. a SelfSubjectRulesReview for leader election);
   *     null for a plain CRUD mock
   * @param broker wraps the broker client the operator uses, e.g. to count its requests
   */
  public static OperatorFixture start(String name, UnaryOperator<OperatorSettings> adjust,
      Consumer<KubernetesMockServer> expectations, UnaryOperator<BrokerClient> broker) {
    return Sandbox.builder("op-" + name).kubernetes(MockKubernetes.ALL_CRDS, expectations).brokerUsers("baton-t")
        .start(stack -> new OperatorFixture(stack, adjust, broker));
  }

  public <T extends HasMetadata> T create(T resource) {
    return client.resource(resource).create();
  }

  public <T extends HasMetadata> T get(Class<T> kind, String namespace, String name) {
    return client.resources(kind).inNamespace(namespace).withName(name).get();
  }

  /** Edits as a person would: on a conflict with the operator's status patch, read again and redo the change. */
  public <T extends HasMetadata> T edit(Class<T> kind, String namespace, String name, UnaryOperator<T> change) {
    return ResourceEdits.edit(client, kind, namespace, name, change);
  }

  public <T extends HasMetadata> void delete(Class<T> kind, String namespace, String name) {
    client.resources(kind).inNamespace(namespace).withName(name).delete();
  }

  /** The condition of the resource as it is now, if the operator wrote one. */
  public <S extends BatonStatus, T extends CustomResource<?, S>> Optional<Condition> condition(
      Class<T> kind, String namespace, String name, String type) {
    T r = get(kind, namespace, name);
    return r == null || r.getStatus() == null ? Optional.empty() : r.getStatus().condition(type);
  }

  /** Waits until Ready has the given status and reason, and returns the condition. */
  public <S extends BatonStatus, T extends CustomResource<?, S>> Condition awaitReady(
      Class<T> kind, String namespace, String name, boolean ready, String reason) {
    return awaitCondition(kind, namespace, name, ConditionTypes.READY, ready, reason);
  }

  public <S extends BatonStatus, T extends CustomResource<?, S>> Condition awaitCondition(
      Class<T> kind, String namespace, String name, String type, boolean status, String reason) {
    return await().atMost(WITHIN).until(() -> condition(kind, namespace, name, type).orElse(null),
        c -> c != null && c.getStatus().equals(status ? "True" : "False") && c.getReason().equals(reason));
  }

  /** The broker user the operator creates for a service in this fixture. */
  public String username(String service) {
    return settings.userPrefix() + service;
  }

  @Override
  public void close() {
    stack.close();
  }
}
