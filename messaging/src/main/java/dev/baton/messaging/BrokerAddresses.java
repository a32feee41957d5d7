package dev.baton.messaging;

import com.rabbitmq.client.Address;
import com.rabbitmq.client.ConnectionFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The nodes of a RabbitMQ cluster to connect to, {@code BATON_RABBITMQ_ADDRESSES=host:port,host:port,...}, for the
 * runtime and the worker SDK alike. The URI still gives the credentials, the vhost and TLS; the addresses replace
 * its host and port. A connection goes to the first node that answers, in order, and so does automatic recovery
 * when that node goes away.
 */
public final class BrokerAddresses {

  public static final String VARIABLE = "BATON_RABBITMQ_ADDRESSES";

  private BrokerAddresses() {}

  /**
   * {@code host[:port]} items (the port defaults to {@code defaultPort}); empty items are skipped.
   *
   * @throws IllegalArgumentException naming the item that is not a host with an optional port 1..65535
   */
  public static List<Address> parse(List<String> items, int defaultPort) {
    List<Address> addresses = new ArrayList<>();
    for (String raw : items) {
      String item = raw.strip();
      if (item.isEmpty()) {
        continue;
      }
      if (item.contains("@")) { // never quoted: it may carry a password
        throw new IllegalArgumentException("an item is not host:port but holds credentials: they belong in the URI");
      }
      int colon = item.lastIndexOf(':');
      String host = colon < 0 ? item : item.substring(0, colon);
      int port = defaultPort;
      if (colon >= 0) {
        try {
          port = Integer.parseInt(item.substring(colon + 1));
        } catch (NumberFormatException e) {
          port = -1;
        }
      }
      if (host.isEmpty() || host.contains("/") || port < 1 || port > 65_535) {
        throw new IllegalArgumentException("'" + item + "' is not host:port (a port from 1 to 65535)");
      }
      addresses.add(new Address(host, port));
    }
    return List.copyOf(addresses);
  }

  /** The addresses to connect to: these, or the factory's own host and port when there are none. */
  public static List<Address> orFactory(List<Address> addresses, ConnectionFactory factory) {
    return addresses.isEmpty() ? List.of(new Address(factory.getHost(), factory.getPort())) : addresses;
  }

  /** {@code host:port,host:port}, for logs. */
  public static String describe(List<Address> addresses) {
    return String.join(",", addresses.stream().map(a -> a.getHost() + ":" + a.getPort()).toList());
  }
}
