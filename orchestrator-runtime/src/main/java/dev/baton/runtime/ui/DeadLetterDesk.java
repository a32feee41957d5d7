package dev.baton.runtime.ui;

import com.rabbitmq.client.Connection;
import com.rabbitmq.http.client.Client;
import dev.baton.deadletters.DeadLetterBrowser.QueueCount;
import dev.baton.deadletters.DeadLetterBrowser;
import dev.baton.deadletters.DeadLetterQueue;
import dev.baton.deadletters.ManagementApi;
import dev.baton.deadletters.ParkedMessage;
import dev.baton.deadletters.Replayer;
import dev.baton.runtime.broker.AmqpConnector;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;

/**
 * The dead-letter page's access to the broker: queues and peeked messages through the management API, replays
 * over AMQP — both with {@code baton dlq}'s own code ({@link DeadLetterBrowser}, {@link Replayer}), as the user the
 * settings name (an administrator in {@code baton dev}; in a cluster, a user that may read the parking lots).
 */
public final class DeadLetterDesk {

  /** Messages peeked per queue on the page. */
  static final int PEEK = 20;

  /** One queue on the page: how many messages it holds and its first messages. */
  record QueueView(DeadLetterQueue queue, long messages, List<ParkedMessage> peeked) {}

  private final DeadLetterBrowser browser;
  private final AmqpConnector connector;
  private final String unavailable;

  private DeadLetterDesk(DeadLetterBrowser browser, AmqpConnector connector, String unavailable) {
    this.browser = browser;
    this.connector = connector;
    this.unavailable = unavailable;
  }

  /**
   * @param managementUrl e.g. {@code http://127.0.0.1:15672/api/}; null: the page says how to configure it
   * @param amqpUri the runtime's broker URI (its vhost is where the parking lots are)
   * @param username user for both the management API and the replay connection
   * @param caFile PEM file of the broker's CA (BATON_RABBITMQ_CA_FILE), trusted for an https management API and an
   *     amqps:// replay connection; null: the JVM's trust store
   * @param amqpAddresses the cluster's nodes, as the runtime's own connections use them
   */
  public static DeadLetterDesk of(String managementUrl, String amqpUri, String username, String password,
      String caFile, List<String> amqpAddresses) {
    if (managementUrl == null) {
      return new DeadLetterDesk(null, null, "The runtime has no RabbitMQ management API to read dead letters from:"
          + " set BATON_RABBITMQ_MANAGEMENT_URL (baton dev does).");
    }
    try {
      if (username == null || password == null) { // the broker user of the URI
        com.rabbitmq.client.ConnectionFactory uri = new com.rabbitmq.client.ConnectionFactory();
        uri.setUri(amqpUri);
        username = username == null ? uri.getUsername() : username;
        password = password == null ? uri.getPassword() : password;
      }
      // The broker's CA signs its management API's certificate too (https).
      Client client = new Client(ManagementApi.parameters(managementUrl, username, password, caFile));
      return new DeadLetterDesk(new DeadLetterBrowser(client, vhostOf(amqpUri)),
          new AmqpConnector(amqpUri, username, password, caFile, amqpAddresses), null);
    } catch (Exception e) { // the message of a URI parser may quote the URI, with its password: not shown
      return new DeadLetterDesk(null, null, "BATON_RABBITMQ_MANAGEMENT_URL or the broker URI is not usable ("
          + e.getClass().getSimpleName() + ")");
    }
  }

  /** Why the page cannot show dead letters, if it cannot. */
  Optional<String> unavailable() {
    return Optional.ofNullable(unavailable);
  }

  String vhost() {
    return browser.vhost();
  }

  /** The dead-letter queues by service, each with its first messages. */
  Map<String, List<QueueView>> byService(String service) {
    Map<String, List<QueueView>> services = new TreeMap<>();
    List<QueueCount> queues = browser.queues(service).orElse(List.of());
    for (QueueCount q : queues) {
      List<ParkedMessage> peeked = q.messages() == 0 ? List.of() : browser.peek(q.queue(), PEEK).orElse(List.of());
      services.computeIfAbsent(q.queue().service(), s -> new ArrayList<>())
          .add(new QueueView(q.queue(), messages(q.messages(), peeked), peeked));
    }
    return services;
  }

  /**
   * How many messages a queue holds: the management API's statistics lag by seconds (a queue just replayed still
   * counts its messages), so a peek that came back short of {@link #PEEK} is the count (a parking lot has no
   * consumer holding messages back); a full peek means at least that many.
   */
  static long messages(long statistics, List<ParkedMessage> peeked) {
    if (statistics == 0) {
      return 0; // not peeked (a message parked since then shows on the next look)
    }
    return peeked.size() < PEEK ? peeked.size() : Math.max(statistics, peeked.size());
  }

  /** Replays one message ({@code messageId}) or all of a queue (null), exactly as {@code baton dlq replay}. */
  Replayer.Result replay(DeadLetterQueue queue, String messageId)
      throws IOException, TimeoutException, InterruptedException {
    try (Connection connection = connector.open("baton-runtime-dlq-replay")) {
      return Replayer.replay(connection, queue, new Replayer.Selection(null, messageId, false));
    }
  }

  /** The vhost of an {@code amqp://host/vhost} URI ({@code /} when none is given). */
  static String vhostOf(String amqpUri) {
    String path = URI.create(amqpUri).getRawPath();
    if (path == null || path.length() <= 1) {
      return "/";
    }
    return URLDecoder.decode(path.substring(1), StandardCharsets.UTF_8);
  }
}
