package dev.baton.operator.broker;

import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.ClientParameters;
import com.rabbitmq.http.client.HttpClientException;
import com.rabbitmq.http.client.HttpException;
import com.rabbitmq.http.client.HttpServerException;
import com.rabbitmq.http.client.JdkHttpClientHttpLayer;
import com.rabbitmq.http.client.domain.DeleteQueueParameters;
import com.rabbitmq.http.client.domain.ExchangeInfo;
import com.rabbitmq.http.client.domain.QueueInfo;
import com.rabbitmq.http.client.domain.UserInfo;
import com.rabbitmq.http.client.domain.UserPermissions;
import dev.baton.contract.TlsTrust;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.ExchangeSpec;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueSpec;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

/**
 * {@link BrokerClient} over the RabbitMQ management HTTP API: writes with Hop, listings with {@code columns=}
 * ({@link ManagementReads}), both on one JDK HTTP client. Connections and requests time out, so a broker that does not
 * answer is reported unavailable instead of stalling a reconciler thread for good.
 */
public final class HopBrokerClient implements BrokerClient {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(15);
  /**
   * Writes (users, permissions) sent at once, whatever the number of reconcile threads. The management API applies
   * each in a schema transaction of its own; at 5,000 WorkerServices a burst of 150 at once (one per reconcile thread)
   * was answered 502 for seconds, where a few at a time keep the broker's pace without failures to retry.
   */
  static final int MAX_CONCURRENT_WRITES = 4;

  private final Semaphore writes = new Semaphore(MAX_CONCURRENT_WRITES, true);

  private final Client client;
  private final ManagementReads reads;
  private final String vhost;
  private final String url;

  private HopBrokerClient(Client client, ManagementReads reads, String vhost, String url) {
    this.client = client;
    this.reads = reads;
    this.vhost = vhost;
    this.url = url;
  }

  /** A client for {@code managementUrl} as the given administrator; no request is made yet. */
  public static HopBrokerClient create(String managementUrl, String username, String password, String vhost) {
    return create(managementUrl, username, password, vhost, null);
  }

  /** @param caFile PEM file of the CA that signed the management API's certificate (https), or null: the JVM's */
  public static HopBrokerClient create(String managementUrl, String username, String password, String vhost,
      String caFile) {
    // Only https needs the CA; TlsTrust says itself what is wrong with the file.
    SSLContext tls = caFile == null || !managementUrl.startsWith("https:") ? null : TlsTrust.context(caFile);
    try {
      String authorization = basic(username, password);
      HttpClient http = tls == null ? HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build()
          : HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).sslContext(tls).build();
      ClientParameters parameters = new ClientParameters()
          .url(managementUrl)
          .username(username)
          .password(password)
          .httpLayerFactory(JdkHttpClientHttpLayer.configure()
              .clientBuilderConsumer(b -> {
                b.connectTimeout(CONNECT_TIMEOUT);
                if (tls != null) {
                  b.sslContext(tls);
                }
              })
              // Replacing Hop's request consumer replaces its credentials too: set both.
              .requestBuilderConsumer(r -> r.timeout(REQUEST_TIMEOUT).setHeader("Authorization", authorization))
              .create());
      return new HopBrokerClient(new Client(parameters),
          new ManagementReads(http, managementUrl, authorization, REQUEST_TIMEOUT, vhost), vhost, managementUrl);
    } catch (Exception e) {
      throw new IllegalArgumentException("bad RabbitMQ management URL '" + managementUrl + "': " + e.getMessage(), e);
    }
  }

  private static String basic(String username, String password) {
    return "Basic " + java.util.Base64.getEncoder()
        .encodeToString((username + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Override
  public String vhost() {
    return vhost;
  }

  @Override
  public List<BrokerExchange> exchanges() {
    return reads.exchanges();
  }

  @Override
  public void declareExchange(ExchangeSpec exchange) {
    run("declaring exchange " + exchange.name(), () -> client.declareExchange(vhost, exchange.name(),
        new ExchangeInfo(exchange.type().brokerName(), true, false)));
  }

  @Override
  public void deleteExchange(String name) {
    run("deleting exchange " + name, () -> client.deleteExchange(vhost, name));
  }

  @Override
  public List<BrokerQueue> queues() {
    return reads.queues();
  }

  @Override
  public Optional<BrokerQueue> queue(String name) {
    return reads.queue(name);
  }

  @Override
  public void declareQueue(QueueSpec queue) {
    run("declaring queue " + queue.name(),
        () -> client.declareQueue(vhost, queue.name(), new QueueInfo(true, false, false, new HashMap<>(queue.arguments()))));
  }

  @Override
  public void deleteQueue(String name) {
    run("deleting queue " + name, () -> client.deleteQueue(vhost, name));
  }

  @Override
  public boolean deleteQueueIfIdle(String name) {
    try {
      client.deleteQueue(vhost, name, new DeleteQueueParameters(true, true));
      return true;
    } catch (HttpClientException e) {
      if (e.status() == 400) {
        // precondition_failed: the broker holds messages in it, or a consumer, right now
        return false;
      }
      throw translate("deleting queue " + name + " if empty and unused", e);
    } catch (HttpException e) {
      throw translate("deleting queue " + name + " if empty and unused", e);
    }
  }

  @Override
  public List<BrokerBinding> bindings() {
    return reads.bindings();
  }

  @Override
  public void bind(BindingSpec binding) {
    run("binding " + binding.queue() + " to " + binding.exchange(),
        () -> client.bindQueue(vhost, binding.queue(), binding.exchange(), binding.routingKey()));
  }

  @Override
  public void unbind(BrokerBinding binding) {
    // Hop puts the last argument into the path where the management API expects the properties key.
    run("unbinding " + binding.queue() + " from " + binding.exchange(),
        () -> client.unbindQueue(vhost, binding.queue(), binding.exchange(), binding.propertiesKey()));
  }

  @Override
  public List<BrokerUser> users() {
    return reads.users();
  }

  @Override
  public Optional<BrokerUser> user(String name) {
    UserInfo user = call("reading user " + name, () -> client.getUser(name));
    return Optional.ofNullable(user)
        .map(u -> new BrokerUser(u.getName(), u.getPasswordHash(), u.getHashingAlgorithm(), u.getTags()));
  }

  @Override
  public void putUser(String name, String password, List<String> tags) {
    run("creating user " + name, () -> client.createUser(name, password.toCharArray(), tags));
  }

  @Override
  public void deleteUser(String name) {
    run("deleting user " + name, () -> client.deleteUser(name));
  }

  @Override
  public Map<String, PermissionSpec> permissions() {
    return reads.permissions();
  }

  @Override
  public Optional<PermissionSpec> permissions(String user) {
    UserPermissions p = call("reading permissions of " + user, () -> client.getPermissions(vhost, user));
    return Optional.ofNullable(p).map(x -> new PermissionSpec(x.getConfigure(), x.getWrite(), x.getRead()));
  }

  @Override
  public void putPermissions(String user, PermissionSpec permissions) {
    run("setting permissions of " + user, () -> client.updatePermissions(vhost, user,
        new UserPermissions(permissions.read(), permissions.write(), permissions.configure())));
  }

  /** A write: at most {@link #MAX_CONCURRENT_WRITES} at once, the rest wait their turn in order. */
  private void run(String what, Runnable action) {
    try {
      writes.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BrokerException(BrokerException.Failure.UNAVAILABLE, what + " was interrupted", e);
    }
    try {
      call(what, () -> {
        action.run();
        return null;
      });
    } finally {
      writes.release();
    }
  }

  private <T> T call(String what, Supplier<T> action) {
    for (int attempt = 1; ; attempt++) {
      try {
        return action.get();
      } catch (HttpException e) {
        if (attempt > StaleConnections.RETRIES || !StaleConnections.isStale(e)) {
          throw translate(what, e);
        }
      }
    }
  }

  private BrokerException translate(String what, HttpException e) {
    if (e instanceof HttpClientException c) {
      String hint = c.status() == 401 ? ": the operator's broker credentials were refused" : "";
      return new BrokerException(BrokerException.Failure.REJECTED,
          what + " was refused by the RabbitMQ management API (HTTP " + c.status() + ")" + hint, e);
    }
    if (e instanceof HttpServerException s) {
      return new BrokerException(BrokerException.Failure.UNAVAILABLE,
          what + " failed: the RabbitMQ management API answered HTTP " + s.status(), e);
    }
    Throwable cause = e.getCause() == null ? e : e.getCause();
    String detail = cause.getMessage() == null ? cause.getClass().getSimpleName()
        : cause.getClass().getSimpleName() + ": " + cause.getMessage();
    return new BrokerException(BrokerException.Failure.UNAVAILABLE,
        what + " failed: cannot reach the RabbitMQ management API at " + url + " (" + detail + ")", e);
  }
}
