package dev.baton.worker;

import com.rabbitmq.client.ConnectionFactory;
import dev.baton.contract.TlsTrust;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.settings.SettingsReader;
import dev.baton.messaging.BrokerAddresses;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * The connection factory of a worker: from the credentials the operator injects, or as given, always with automatic
 * recovery. Nothing here ever prints the URI: it carries the password.
 */
final class BrokerConnection {

  private BrokerConnection() {}

  /**
   * From {@code BATON_RABBITMQ_URI}, with {@code BATON_RABBITMQ_USERNAME}/{@code _PASSWORD} taking precedence over
   * credentials in the URI when set. Problems are collected by {@code r}; the result is only meaningful without any.
   */
  static ConnectionFactory fromEnvironment(SettingsReader r) {
    String uri = r.requiredUri(WorkerEnvironment.RABBITMQ_URI, "amqp", "amqps");
    String username = r.string(WorkerEnvironment.RABBITMQ_USERNAME, null);
    String password = r.secret(WorkerEnvironment.RABBITMQ_PASSWORD);
    String caFile = r.string(TlsTrust.CA_FILE_VARIABLE, null);
    if (username != null && password == null) {
      r.problem(WorkerEnvironment.RABBITMQ_PASSWORD, "required when " + WorkerEnvironment.RABBITMQ_USERNAME
          + " is set");
    }
    if (uri == null) {
      return null;
    }
    ConnectionFactory factory;
    try {
      factory = parsed(uri, WorkerEnvironment.RABBITMQ_URI);
    } catch (IllegalArgumentException e) {
      r.problem(WorkerEnvironment.RABBITMQ_URI, "not accepted by the RabbitMQ client: check the URL-encoding of"
          + " user, password and vhost");
      return null;
    }
    if (username != null) {
      factory.setUsername(username);
    }
    if (password != null) {
      factory.setPassword(password);
    }
    if (factory.isSSL()) {
      try {
        verifiedTls(factory, caFile);
      } catch (IllegalArgumentException e) {
        r.problem(TlsTrust.CA_FILE_VARIABLE, e.getMessage());
      }
    }
    return factory;
  }

  /** {@code BATON_RABBITMQ_ADDRESSES}: the nodes of a cluster, in place of the URI's host and port; empty without. */
  static List<String> addresses(SettingsReader r) {
    List<String> items = r.list(BrokerAddresses.VARIABLE, List.of());
    try {
      BrokerAddresses.parse(items, 5672);
      return items;
    } catch (IllegalArgumentException e) {
      r.problem(BrokerAddresses.VARIABLE, e.getMessage());
      return List.of();
    }
  }

  /**
   * {@code amqp://user:password@host:port/vhost} (or {@code amqps://}), with the runtime's TLS rules
   * ({@link TlsTrust}): for {@code amqps://} the broker's certificate is checked against {@code caFile} (PEM; null
   * or blank: the JVM's trust store) and its host name verified.
   *
   * @throws IllegalArgumentException when the URI is malformed, or the CA file cannot be read or holds no certificate
   */
  static ConnectionFactory fromUri(String uri, String what, String caFile) {
    ConnectionFactory factory = parsed(uri, what);
    if (factory.isSSL()) {
      verifiedTls(factory, caFile == null || caFile.isBlank() ? null : caFile);
    }
    return factory;
  }

  /** The URI's host, port, vhost and credentials; TLS is the caller's to set up ({@link #verifiedTls}). */
  private static ConnectionFactory parsed(String uri, String what) {
    ConnectionFactory factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
    } catch (Exception e) {
      // The exception text would quote the URI, password included.
      throw new IllegalArgumentException(what + " is not an amqp:// or amqps:// URI");
    }
    return factory;
  }

  /**
   * {@code amqps://}: trust the CAs of {@code caFile} (PEM), or the JVM's default trust store when null, and verify
   * the broker's host name. Replaces the client's own default for {@code amqps} URIs, which trusts any certificate.
   */
  static void verifiedTls(ConnectionFactory factory, String caFile) {
    factory.useSslProtocol(TlsTrust.context(caFile));
    factory.enableHostnameVerification();
  }

  /** A copy of {@code given} with what a worker relies on switched on, leaving the caller's factory untouched. */
  static ConnectionFactory prepare(ConnectionFactory given) {
    ConnectionFactory factory = given.clone();
    factory.setAutomaticRecoveryEnabled(true);
    // Recovers the channels' qos, confirm mode and consumers; the worker declares no exchanges or queues to recover.
    factory.setTopologyRecoveryEnabled(true);
    return factory;
  }

  /** Where and as whom, for logs: never the password. */
  static String describe(ConnectionFactory factory) {
    return factory.getHost() + ":" + factory.getPort() + " vhost '" + factory.getVirtualHost() + "' as '"
        + factory.getUsername() + "'";
  }

  /** {@code baton-worker-<service>-<host>}: shown in the management UI next to the connection. */
  static String connectionName(String service) {
    return "baton-worker-" + service + "-" + hostName();
  }

  private static String hostName() {
    String pod = System.getenv("HOSTNAME");
    if (pod != null && !pod.isBlank()) {
      return pod.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      return "unknown-host";
    }
  }
}
