package dev.baton.sandbox;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.ClientParameters;
import com.rabbitmq.http.client.domain.UserInfo;
import com.rabbitmq.http.client.domain.UserPermissions;
import dev.baton.contract.topology.PermissionSpec;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * A fresh vhost on the real broker for one test class, so tests never see each other's queues. Closing it deletes
 * the vhost with everything in it.
 */
public final class RabbitVhost implements AutoCloseable {

  /** How long closing waits for the vhost to go: a vhost of 25,000 queues took the broker 8–24 s here. */
  static final Duration DELETED_WITHIN = Duration.ofMinutes(3);

  private final String name;
  private final Client management;

  private RabbitVhost(String name, Client management) {
    this.name = name;
    this.management = management;
  }

  /** Creates {@code <prefix>-<random>} and grants the admin user full permissions in it. */
  public static RabbitVhost create(String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    Client client = managementClient();
    client.createVhost(name);
    UserPermissions all = new UserPermissions();
    all.setConfigure(".*");
    all.setWrite(".*");
    all.setRead(".*");
    client.updatePermissions(name, LocalServices.RABBITMQ_USERNAME, all);
    return new RabbitVhost(name, client);
  }

  /** A management API client as the admin user. */
  public static Client managementClient() {
    try {
      return new Client(new ClientParameters()
          .url(LocalServices.RABBITMQ_MANAGEMENT_URL)
          .username(LocalServices.RABBITMQ_USERNAME)
          .password(LocalServices.RABBITMQ_PASSWORD));
    } catch (Exception e) {
      throw new IllegalStateException("cannot reach the RabbitMQ management API at "
          + LocalServices.RABBITMQ_MANAGEMENT_URL + " (is rabbitmq_management enabled?)", e);
    }
  }

  public String name() {
    return name;
  }

  public Client management() {
    return management;
  }

  /** A connection factory for this vhost as the admin user, with automatic recovery on. */
  public ConnectionFactory connectionFactory() {
    return connectionFactory(LocalServices.RABBITMQ_USERNAME, LocalServices.RABBITMQ_PASSWORD);
  }

  public ConnectionFactory connectionFactory(String username, String password) {
    ConnectionFactory cf = new ConnectionFactory();
    cf.setHost(LocalServices.RABBITMQ_HOST);
    cf.setPort(LocalServices.RABBITMQ_PORT);
    cf.setVirtualHost(name);
    cf.setUsername(username);
    cf.setPassword(password);
    cf.setAutomaticRecoveryEnabled(true);
    return cf;
  }

  /** {@code amqp://user:password@host:port/vhost} with the vhost URL-encoded. */
  public String amqpUri(String username, String password) {
    return "amqp://" + username + ":" + password + "@" + LocalServices.RABBITMQ_HOST + ":"
        + LocalServices.RABBITMQ_PORT + "/" + java.net.URLEncoder.encode(name, java.nio.charset.StandardCharsets.UTF_8);
  }

  /** A broker user with {@code permissions} in this vhost only (and no tags: it cannot use the management API). */
  public void createUser(String username, String password, PermissionSpec permissions) {
    management.createUser(username, password.toCharArray(), List.of());
    UserPermissions p = new UserPermissions();
    p.setConfigure(permissions.configure());
    p.setWrite(permissions.write());
    p.setRead(permissions.read());
    management.updatePermissions(name, username, p);
  }

  /** Deletes the broker users whose names start with {@code prefix}: users live outside the vhost. */
  public void deleteUsers(String prefix) {
    for (UserInfo u : management.getUsers()) {
      if (u.getName().startsWith(prefix)) {
        management.deleteUser(u.getName());
      }
    }
  }

  public Connection newConnection(String clientName) {
    try {
      return connectionFactory().newConnection(clientName);
    } catch (Exception e) {
      throw new IllegalStateException("cannot connect to RabbitMQ vhost " + name, e);
    }
  }

  @Override
  public void close() {
    deleteWithin(management, name, DELETED_WITHIN, Duration.ofSeconds(1));
  }

  /**
   * Deletes the vhost and asks again while it is still there, {@code bound} at most: with thousands of queues (the
   * operator at scale) the broker takes longer than the management API's request may (60 s), and a vhost left behind
   * holds its queues on the broker for every later run. A vhost that outlives the bound fails the close, by name.
   */
  static void deleteWithin(Client management, String name, Duration bound, Duration pause) {
    long deadline = System.nanoTime() + bound.toNanos();
    RuntimeException last = null;
    while (true) {
      try {
        management.deleteVhost(name); // one already gone is no error
      } catch (RuntimeException e) {
        last = e;
      }
      try {
        if (management.getVhost(name) == null) {
          return;
        }
      } catch (RuntimeException e) {
        last = e;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IllegalStateException("vhost " + name + " is still on the broker after " + bound.toSeconds()
            + " s of deleting it (rabbitmqctl delete_vhost " + name + " removes it)", last);
      }
      try {
        Thread.sleep(pause.toMillis()); // the broker goes on deleting meanwhile
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while deleting vhost " + name, e);
      }
    }
  }
}
