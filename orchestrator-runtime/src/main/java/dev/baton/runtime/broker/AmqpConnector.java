package dev.baton.runtime.broker;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.MetricsCollector;
import dev.baton.messaging.BrokerAddresses;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * Opens broker connections with automatic recovery: after a network failure or a broker restart, connections,
 * channels and consumers come back by themselves. The runtime declares nothing, so there is no topology to recover
 * but its consumers.
 */
public final class AmqpConnector {

  private final ConnectionFactory factory;
  private final List<Address> addresses;
  private final String safeAddress;

  /**
   * @param uri broker URI, credentials included unless given apart
   * @param username overrides the URI's user when not null (the operator's Secret carries it apart)
   * @param password overrides the URI's password when not null
   */
  public AmqpConnector(String uri, String username, String password) {
    this(uri, username, password, null);
  }

  /**
   * @param caFile for {@code amqps://} URIs: PEM file of the CA(s) to trust; null for the JVM's default trust store.
   *     The broker's host name is always verified (the client's own "trust everything" default is never used).
   */
  public AmqpConnector(String uri, String username, String password, String caFile) {
    this(uri, username, password, caFile, List.of());
  }

  /**
   * @param addresses {@code host:port} of the nodes of a cluster, tried in order, in place of the URI's host and port
   *     (the URI still gives credentials, vhost and TLS); empty for the URI's host
   */
  /** The largest message the runtime's connections receive: RabbitMQ's own largest {@code max_message_size}. */
  public static final int MAX_INBOUND_BYTES = 512 * 1024 * 1024;

  public AmqpConnector(String uri, String username, String password, String caFile, List<String> addresses) {
    factory = new ConnectionFactory();
    try {
      factory.setUri(uri);
    } catch (Exception e) {
      // The URI may hold a password, and so may the parser's message (it quotes the URI): name only what is safe to
      // show, and do not chain the cause.
      throw new IllegalArgumentException("the RabbitMQ URI is not valid: " + e.getClass().getSimpleName()
          + " (check BATON_RABBITMQ_URI: amqp[s]://user:password@host:port/vhost, URL-encoded)");
    }
    if (username != null) {
      factory.setUsername(username);
    }
    if (password != null) {
      factory.setPassword(password);
    }
    if (factory.isSSL()) {
      factory.useSslProtocol(dev.baton.contract.TlsTrust.context(caFile));
      factory.enableHostnameVerification();
    }
    factory.setAutomaticRecoveryEnabled(true);
    factory.setTopologyRecoveryEnabled(true);
    factory.setNetworkRecoveryInterval(2_000L);
    factory.setRequestedHeartbeat(20);
    // The client closes the connection on a message over its limit (64 MiB by default), and the broker then delivers
    // it again for ever: a poison event that is never parked. Accept what any broker accepts (RabbitMQ's own maximum
    // is 512 MiB); the step loop parks an event it will not apply.
    factory.setMaxInboundMessageBodySize(MAX_INBOUND_BYTES);
    this.addresses = BrokerAddresses.orFactory(BrokerAddresses.parse(addresses, factory.getPort()), factory);
    safeAddress = addresses.isEmpty() ? safeAddress(uri, factory.getUsername())
        : factory.getUsername() + "@" + BrokerAddresses.describe(this.addresses) + " vhost " + factory.getVirtualHost();
  }

  /** Tells {@code collector} what the connections opened from now on do (published, consumed, acked...). */
  public AmqpConnector meteredBy(MetricsCollector collector) {
    factory.setMetricsCollector(collector);
    return this;
  }

  /** A connection to the first node that answers; automatic recovery goes through the list again. */
  public Connection open(String name) throws IOException, TimeoutException {
    return factory.newConnection(addresses, name);
  }

  /** {@code amqp://user@host:port/vhost}: for logs, without the password. */
  public String safeAddress() {
    return safeAddress;
  }

  private static String safeAddress(String uri, String user) {
    try {
      URI u = URI.create(uri);
      return u.getScheme() + "://" + user + "@" + u.getHost() + (u.getPort() > 0 ? ":" + u.getPort() : "")
          + (u.getRawPath() == null ? "" : u.getRawPath());
    } catch (IllegalArgumentException e) {
      return "(unparseable URI)";
    }
  }
}
