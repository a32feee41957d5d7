package dev.baton.reliability.infra;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.ClientParameters;
import com.rabbitmq.http.client.domain.ConnectionInfo;
import com.rabbitmq.http.client.domain.UserPermissions;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A RabbitMQ node of the suite's own, beside the shared one (which is never touched): its own node name, ports
 * (AMQP, AMQPS with a certificate of {@link TestCa}, management, distribution), data and log directories and Erlang
 * cookie, all in a temporary directory. The suite may stop and start its application, or the whole node, at will.
 * {@link Infra} stops it in a JVM shutdown hook.
 */
public final class PrivateRabbit implements AutoCloseable {

  private static final Path BIN = Path.of("/usr/lib/rabbitmq/bin");
  public static final String USER = "guest";
  public static final String PASSWORD = "guest";

  private final Path dir;
  private final String node;
  private final int amqpPort;
  private final int amqpsPort;
  private final int managementPort;
  private final Map<String, String> env = new HashMap<>();
  private Process server;
  private Client management;
  private volatile boolean closed;

  private PrivateRabbit(Path dir, TestCa ca, String cookie) {
    this.dir = dir;
    this.node = "baton-faults-" + UUID.randomUUID().toString().substring(0, 6) + "@localhost";
    this.amqpPort = Cmd.freePort();
    this.amqpsPort = Cmd.freePort();
    this.managementPort = Cmd.freePort();
    int distPort = Cmd.freePort();
    try {
      Files.createDirectories(dir.resolve("mnesia"));
      Files.createDirectories(dir.resolve("log"));
      Files.writeString(dir.resolve("enabled_plugins"), "[rabbitmq_management].\n");
      Files.writeString(dir.resolve("rabbitmq-env.conf"), "ERL_EPMD_ADDRESS=127.0.0.1\n");
      Files.writeString(dir.resolve("rabbitmq.conf"), String.join("\n",
          "listeners.tcp.default = " + amqpPort,
          "listeners.ssl.default = " + amqpsPort,
          "ssl_options.cacertfile = " + ca.caCert(),
          "ssl_options.certfile = " + ca.serverCert(),
          "ssl_options.keyfile = " + ca.serverKey(),
          "ssl_options.verify = verify_none",
          "ssl_options.fail_if_no_peer_cert = false",
          "management.tcp.port = " + managementPort,
          "management.tcp.ip = 127.0.0.1",
          "collect_statistics_interval = 1000",
          "log.file.level = warning",
          "disk_free_limit.absolute = 50MB",
          ""));
      if (cookie != null) {
        // the nodes of a cluster share one cookie; Erlang refuses a cookie file others may read
        Path file = dir.resolve(".erlang.cookie");
        Files.writeString(file, cookie);
        Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    env.put("HOME", dir.toString()); // the Erlang cookie of this node (and of rabbitmqctl talking to it)
    env.put("RABBITMQ_NODENAME", node);
    env.put("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
    env.put("RABBITMQ_NODE_PORT", String.valueOf(amqpPort));
    env.put("RABBITMQ_DIST_PORT", String.valueOf(distPort));
    env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
    env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
    env.put("RABBITMQ_PID_FILE", dir.resolve("rabbit.pid").toString());
    env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString());
    env.put("RABBITMQ_ADVANCED_CONFIG_FILE", dir.resolve("advanced.config").toString());
    env.put("RABBITMQ_CONF_ENV_FILE", dir.resolve("rabbitmq-env.conf").toString());
    env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
    env.put("RABBITMQ_ALLOW_INPUT", "");
  }

  /** Starts a node and waits until it and its management API answer. */
  public static PrivateRabbit start(Path dir, TestCa ca) {
    return start(dir, ca, null);
  }

  /** A node with the Erlang cookie {@code cookie} (null: its own), as the nodes of one cluster need. */
  public static PrivateRabbit start(Path dir, TestCa ca, String cookie) {
    if (!Files.isExecutable(BIN.resolve("rabbitmq-server"))) {
      throw new IllegalStateException("RabbitMQ is not installed in " + BIN + ": the fault suite needs a node of its own");
    }
    PrivateRabbit r = new PrivateRabbit(dir, ca, cookie);
    try {
      r.launch();
      return r;
    } catch (RuntimeException e) {
      r.close();
      throw e;
    }
  }

  private void launch() {
    try {
      ProcessBuilder pb = new ProcessBuilder(BIN.resolve("rabbitmq-server").toString()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile()));
      pb.environment().putAll(env);
      server = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start rabbitmq-server", e);
    }
    Instant until = Instant.now().plusSeconds(120);
    while (true) {
      try {
        ctl(60, "await_startup"); // refuses at once while the node has not registered with epmd yet
        break;
      } catch (IllegalStateException notYet) {
        if (Instant.now().isAfter(until) || !server.isAlive()) {
          throw new IllegalStateException("node " + node + " did not start; see " + dir.resolve("server.out"), notYet);
        }
        sleep(500);
      }
    }
    management = managementClient();
    awaitManagement();
  }

  private Client managementClient() {
    try {
      return new Client(new ClientParameters().url(managementUrl()).username(USER).password(PASSWORD));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void awaitManagement() {
    Instant until = Instant.now().plusSeconds(60);
    while (true) {
      try {
        management.getOverview();
        return;
      } catch (RuntimeException e) {
        if (Instant.now().isAfter(until)) {
          throw new IllegalStateException("the management API of " + node + " does not answer", e);
        }
        sleep(300);
      }
    }
  }

  /** {@code rabbitmqctl -n <node> <args>}. */
  public String ctl(long timeoutSeconds, String... args) {
    List<String> cmd = new java.util.ArrayList<>(List.of(BIN.resolve("rabbitmqctl").toString(), "-n", node));
    cmd.addAll(List.of(args));
    return Cmd.run(cmd, env, timeoutSeconds);
  }

  /** SIGKILL of the node's Erlang VM: no goodbye to the cluster, its data stays for {@link #restart()}. */
  public synchronized void kill() {
    server.descendants().forEach(ProcessHandle::destroyForcibly);
    server.destroyForcibly();
    try {
      server.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Starts the node again on its own data (a cluster member rejoins its cluster), then waits for it. */
  public synchronized void restart() {
    launch();
  }

  /** {@code rabbitmqctl stop_app}: the broker application stops (connections drop, ports close), the node stays. */
  public void stopApp() {
    ctl(120, "stop_app");
  }

  /** {@code rabbitmqctl start_app}, then waits for the management API. */
  public void startApp() {
    ctl(120, "start_app");
    ctl(120, "await_startup");
    awaitManagement();
  }

  public String node() {
    return node;
  }

  public int amqpPort() {
    return amqpPort;
  }

  public int amqpsPort() {
    return amqpsPort;
  }

  public String managementUrl() {
    return "http://127.0.0.1:" + managementPort + "/api/";
  }

  public Client management() {
    return management;
  }

  /** Creates a vhost with full permissions for the admin user. */
  public String createVhost(String prefix) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 6);
    management.createVhost(name);
    UserPermissions all = new UserPermissions();
    all.setConfigure(".*");
    all.setWrite(".*");
    all.setRead(".*");
    management.updatePermissions(name, USER, all);
    return name;
  }

  public String amqpUri(String vhost) {
    return amqpUri(USER, PASSWORD, vhost);
  }

  public String amqpUri(String user, String password, String vhost) {
    return "amqp://" + enc(user) + ":" + enc(password) + "@127.0.0.1:" + amqpPort + "/" + enc(vhost);
  }

  /** {@code amqps://…@localhost:<tls port>/vhost}: the host name the server certificate names. */
  public String amqpsUri(String user, String password, String vhost) {
    return "amqps://" + enc(user) + ":" + enc(password) + "@localhost:" + amqpsPort + "/" + enc(vhost);
  }

  public ConnectionFactory connectionFactory(String vhost) {
    ConnectionFactory cf = new ConnectionFactory();
    cf.setHost("127.0.0.1");
    cf.setPort(amqpPort);
    cf.setVirtualHost(vhost);
    cf.setUsername(USER);
    cf.setPassword(PASSWORD);
    cf.setAutomaticRecoveryEnabled(true);
    cf.setNetworkRecoveryInterval(1_000);
    return cf;
  }

  /** Closes, through the management API, the connections of {@code vhost} whose client-given name matches. */
  public int closeConnections(String vhost, Predicate<String> name) {
    int closed = 0;
    for (ConnectionInfo c : connections(vhost)) {
      String n = c.getClientProperties() == null ? null : c.getClientProperties().getConnectionName();
      if (n != null && name.test(n)) {
        try {
          management.closeConnection(c.getName(), "fault injection: connection force-closed");
          closed++;
        } catch (RuntimeException e) {
          // gone already
        }
      }
    }
    return closed;
  }

  public List<ConnectionInfo> connections(String vhost) {
    List<ConnectionInfo> all = management.getConnections();
    return all == null ? List.of() : all.stream().filter(c -> vhost.equals(c.getVhost())).toList();
  }

  /** The connections of {@code vhost} whose client-given name starts with {@code prefix}. */
  public List<ConnectionInfo> connections(String vhost, String prefix) {
    return connections(vhost).stream().filter(c -> c.getClientProperties() != null
        && c.getClientProperties().getConnectionName() != null
        && c.getClientProperties().getConnectionName().startsWith(prefix)).toList();
  }

  public int channels(String vhost) {
    var all = management.getChannels();
    return all == null ? 0 : (int) all.stream().filter(c -> vhost.equals(c.getVhost())).count();
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (server != null) {
      // A throw-away node: its data goes with it, so no graceful stop (which needs the Erlang cookie and time that a
      // JVM shutting down may not have). The wrapper script and the Erlang VM it started are killed together.
      server.descendants().forEach(ProcessHandle::destroyForcibly);
      server.destroyForcibly();
      try {
        server.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    Cmd.deleteTree(dir.resolve("mnesia"));
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  public static Duration since(Instant t) {
    return Duration.between(t, Instant.now());
  }
}
