package dev.baton.operator.runtime;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.broker.BrokerException;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.WorkerResources;
import dev.baton.operator.topology.WorkerUserSync;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orchestrator runtime's broker user, {@code <prefix>orchestrator} (docs/design.md#security: the only user that may write
 * command exchanges; permissions from {@link TopologyPlanner#orchestratorPermissions()}), and the Secret the runtime
 * reads it from by reference ({@code username}, {@code password}, {@code uri}; named by
 * {@code BATON_RUNTIME_CREDENTIALS_SECRET}). Kept at start-up and every resync, on the leader only: the Secret keeps
 * its password and the user follows it; a deleted user or Secret comes back. The user is never deleted by the operator
 * (uninstalling it must not cut the runtime off). Failures are logged (once at WARN, then DEBUG), never thrown.
 */
public final class RuntimeBrokerUser implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RuntimeBrokerUser.class);

  private final KubernetesClient client;
  private final WorkerUserSync users;
  private final OperatorSettings settings;
  private ScheduledExecutorService timer;
  private volatile String failing;

  public RuntimeBrokerUser(KubernetesClient client, WorkerUserSync users, OperatorSettings settings) {
    this.client = client;
    this.users = users;
    this.settings = settings;
  }

  /** Keeps the user and Secret now and then every resync period, until closed. */
  public synchronized void start() {
    if (timer == null) {
      timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "baton-runtime-broker-user");
        t.setDaemon(true);
        return t;
      });
      timer.scheduleWithFixedDelay(this::ensureQuietly, 0, settings.resync().toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public synchronized void close() {
    if (timer != null) {
      timer.shutdownNow();
      timer = null;
    }
  }

  public String username() {
    return Names.orchestratorUser(settings.userPrefix());
  }

  /** One pass: the Secret, then the user with its password and permissions. @return what was changed */
  public List<String> ensure() {
    List<String> actions = new ArrayList<>();
    String password = ensureSecret(actions);
    actions.addAll(users.ensure(username(), password, TopologyPlanner.orchestratorPermissions()));
    return actions;
  }

  private void ensureQuietly() {
    try {
      List<String> actions = ensure();
      if (!actions.isEmpty()) {
        LOG.info("Runtime broker user: {}", String.join("; ", actions));
      }
      if (failing != null) {
        LOG.info("Runtime broker user {} and Secret {} are in place again", username(),
            settings.runtimeCredentialsSecret());
        failing = null;
      }
    } catch (BrokerException | KubernetesClientException e) {
      String message = e instanceof KubernetesClientException k ? "HTTP " + k.getCode() + " " + k.getMessage()
          : e.getMessage();
      if (failing == null) {
        LOG.warn("Cannot keep the runtime's broker user {} and Secret {}: {}; retrying every {}", username(),
            settings.runtimeCredentialsSecret(), message, BatonDuration.ofMillis(settings.resync().toMillis()));
      } else {
        LOG.debug("Still cannot keep the runtime's broker user: {}", message);
      }
      failing = message;
    } catch (RuntimeException e) {
      LOG.warn("Keeping the runtime's broker user failed unexpectedly: {}", e.toString());
    }
  }

  private String ensureSecret(List<String> actions) {
    String namespace = settings.runtimeCredentialsNamespace();
    String name = settings.runtimeCredentialsName();
    Secret existing = client.secrets().inNamespace(namespace).withName(name).get();
    String password = Optional.ofNullable(existing).flatMap(Credentials::password).orElseGet(Credentials::newPassword);
    Map<String, String> data = Credentials.data(username(), password, Credentials.uri(username(), password,
        settings.amqpHost(), settings.amqpPort(), settings.vhost(), settings.amqpTls()));
    if (existing == null) {
      client.resource(new SecretBuilder()
          .withNewMetadata().withName(name).withNamespace(namespace).withLabels(labels()).endMetadata()
          .withType("Opaque")
          .withData(data)
          .build()).create();
      actions.add("created Secret " + namespace + "/" + name);
    } else {
      // Keys other than ours (added by someone else) are kept.
      Map<String, String> merged = new LinkedHashMap<>(existing.getData() == null ? Map.of() : existing.getData());
      merged.putAll(data);
      if (!Objects.equals(existing.getData(), merged)) {
        existing.setData(merged);
        existing.setStringData(null);
        client.resource(existing).update();
        actions.add("updated Secret " + namespace + "/" + name);
      }
    }
    return password;
  }

  private static Map<String, String> labels() {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(WorkerResources.NAME_LABEL, "baton-runtime");
    labels.put("app.kubernetes.io/component", "broker-credentials");
    labels.put("app.kubernetes.io/created-by", WorkerResources.MANAGED_BY);
    return labels;
  }
}
