package dev.baton.runtime.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import dev.baton.contract.Names;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.OutboxStore;
import dev.baton.runtime.store.QueuedCommand;
import dev.baton.runtime.store.TestDatabases;
import dev.baton.sandbox.PostgresDatabase;
import dev.baton.sandbox.RabbitVhost;
import dev.baton.sandbox.Sandbox;
import dev.baton.testing.TcpProxy;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One bad outbox row must not stop the others: a command the broker refuses (a nack, or a channel it closes on that
 * command alone) is pinned to its row, marked refused with the broker's reason and handed to the engine side, never
 * retried; every other command is published, in order, and rows already confirmed are never sent again.
 */
class OutboxRelayIT {

  static final String SERVICE = "relay-pay";
  static Sandbox infrastructure;
  static RabbitVhost vhost;
  static PostgresDatabase postgres;
  static Database database;
  static Connection admin;
  static Channel adminChannel;

  Connection publisherConnection;
  OutboxRelay relay;
  TcpProxy proxy;
  final List<String> received = new CopyOnWriteArrayList<>();
  /** How many times the relay handed refusals to the engine side. */
  final java.util.concurrent.atomic.AtomicInteger handedOver = new java.util.concurrent.atomic.AtomicInteger();
  final BrokerMessageLimit limit = new BrokerMessageLimit();
  final RuntimeMetrics metrics = new RuntimeMetrics();

  @BeforeAll
  static void infrastructure() throws Exception {
    infrastructure = Sandbox.builder("relay").vhost().database().start();
    vhost = infrastructure.vhost();
    postgres = infrastructure.database();
    database = TestDatabases.open(infrastructure, 8);
    admin = infrastructure.own(vhost.newConnection("relay-it-admin"));
    adminChannel = admin.createChannel();
    adminChannel.exchangeDeclare(Names.commandExchange(SERVICE), "topic", true);
    // Exists (the relay's probe finds it) but no one may publish to it: the broker closes the channel (403).
    adminChannel.exchangeDeclare("relay.internal.ex", "topic", true, false, true, Map.of());
    // Routes to a queue that takes nothing: the broker nacks every publish.
    adminChannel.exchangeDeclare("relay.full.ex", "topic", true);
    String full = "q.relay.full." + UUID.randomUUID();
    adminChannel.queueDeclare(full, false, true, false, Map.of("x-max-length", 0, "x-overflow", "reject-publish"));
    adminChannel.queueBind(full, "relay.full.ex", "#");
  }

  @AfterAll
  static void close() {
    infrastructure.close(); // the connection, the pool, the database, the vhost
  }

  @BeforeEach
  void consume() throws Exception {
    String queue = "q.relay." + UUID.randomUUID();
    adminChannel.queueDeclare(queue, false, true, true, Map.of());
    adminChannel.queueBind(queue, Names.commandExchange(SERVICE), "#");
    adminChannel.basicConsume(queue, true, new DefaultConsumer(adminChannel) {
      @Override
      public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
        received.add(props.getMessageId());
      }
    });
    try (java.sql.Connection c = postgres.connect(); Statement s = c.createStatement()) {
      s.execute("DELETE FROM outbox");
    }
  }

  @AfterEach
  void stopRelay() throws Exception {
    if (relay != null) {
      relay.close();
    }
    publisherConnection.close();
    if (proxy != null) {
      proxy.close();
    }
  }

  void startRelay() throws Exception {
    startRelay(Duration.ofMillis(200));
  }

  void startRelay(Duration poll) throws Exception {
    startRelay(poll, null);
  }

  /** With a proxy: the relay's broker connection goes through it. */
  void startRelay(Duration poll, TcpProxy proxy) throws Exception {
    startRelay(poll, proxy, new OutboxStore());
  }

  void startRelay(Duration poll, TcpProxy proxy, OutboxStore store) throws Exception {
    ConnectionFactory f = vhost.connectionFactory();
    if (proxy != null) {
      f.setHost("127.0.0.1");
      f.setPort(proxy.port());
    }
    f.setNetworkRecoveryInterval(500);
    publisherConnection = f.newConnection("relay-it-publisher");
    relay = new OutboxRelay(database, store, publisherConnection, metrics, 200, poll,
        handedOver::incrementAndGet, limit, dev.baton.runtime.tracing.PublishTracing.NONE, publishAtCommit());
    relay.start();
  }

  /**
   * Whether the committing thread may publish its own commands (the fast path): off here, so that every command goes
   * through the relay's hand; {@link OutboxRelayAtCommitIT} runs every case again with it on.
   */
  boolean publishAtCommit() {
    return false;
  }

  /** Fails on the code before: an Error in a round ended the relay's thread, and no command was published again. */
  @Test
  void aRoundThatThrowsAnErrorDoesNotStopTheRelay() throws Exception {
    java.util.concurrent.atomic.AtomicInteger errors = new java.util.concurrent.atomic.AtomicInteger();
    startRelay(Duration.ofMillis(200), null, new OutboxStore() {
      @Override
      public List<OutboxRow> claim(java.sql.Connection c, int limit) throws java.sql.SQLException {
        if (errors.getAndIncrement() == 0) {
          throw new StackOverflowError("test hook: the relay's round blew its stack");
        }
        return super.claim(c, limit);
      }
    });
    String after = insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'});
    await().atMost(Duration.ofSeconds(15)).until(() -> received.contains(after) && outboxRows() == 0);
    assertThat(errors.get()).isGreaterThan(1);
  }

  /**
   * The relay, with no poll during the test, publishing through a proxy the test can hold the broker's answers in;
   * returns once the canary row its first search found is confirmed, with the canary's message id.
   */
  String startRelayBehindProxy() throws Exception {
    String canary = insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'});
    ConnectionFactory direct = vhost.connectionFactory();
    proxy = TcpProxy.start(direct.getHost(), direct.getPort());
    startRelay(Duration.ofHours(1), proxy);
    await().atMost(Duration.ofSeconds(10)).until(() -> received.contains(canary) && outboxRows() == 0);
    return canary;
  }

  /**
   * The commits hand their commands over: the relay claims those rows by id and publishes them, in commit order, once;
   * a row it is not handed waits for a search (its poll, or a commit that says commands were written); a row
   * withdrawn before its claim is not published.
   */
  @Test
  void commandsHandedOverAtCommitArePublishedInOrderAndTheOthersWaitForASearch() throws Exception {
    String canary = insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'});
    startRelay(Duration.ofHours(1)); // no poll during the test: only its first search, at start
    await().atMost(Duration.ofSeconds(10)).until(() -> received.contains(canary));

    List<QueuedCommand> handed = new ArrayList<>();
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 450; i++) {
      QueuedCommand q = queued(Names.commandExchange(SERVICE));
      handed.add(q);
      expected.add(q.message().messageId().toString());
    }
    QueuedCommand withdrawn = queued(Names.commandExchange(SERVICE));
    try (java.sql.Connection c = postgres.connect(); Statement s = c.createStatement()) {
      s.execute("DELETE FROM outbox WHERE id = " + withdrawn.outboxId()); // as a cancel does, before the claim
    }
    String notHanded = insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'});
    relay.committed(handed.subList(0, 200));
    relay.committed(List.of(withdrawn));
    relay.committed(handed.subList(200, handed.size()));

    await().atMost(Duration.ofSeconds(20)).until(() -> received.size() >= 1 + expected.size());
    assertThat(received.subList(1, received.size())).as("handed over, in commit order, once")
        .containsExactlyElementsOf(expected);
    // A row goes once its confirm is in and its batch commits, which may be after its delivery.
    await("only the row not handed over is left").atMost(Duration.ofSeconds(10)).until(() -> outboxRows() == 1);

    relay.commandsWritten(); // a commit whose commands were not handed over: the relay searches
    await().atMost(Duration.ofSeconds(10)).until(() -> received.contains(notHanded) && outboxRows() == 0);
    assertThat(received).doesNotContain(withdrawn.message().messageId().toString());
    assertThat(received).hasSize(2 + expected.size());
  }

  /**
   * While every batch in flight waits for its confirms (the broker's answers held back), the commands handed over
   * meanwhile are still published at once, added to the newest batch, instead of waiting for the oldest batch's
   * confirms; once the answers come, every row is confirmed and deleted, each command sent once.
   */
  @Test
  void commandsHandedOverWhileEveryBatchWaitsForItsConfirmsArePublishedWithoutWaitingForThem() throws Exception {
    String canary = startRelayBehindProxy();

    proxy.holdReplies(); // no confirm reaches the relay from here on
    List<String> sent = handOverOneAtATime(OutboxRelay.DEPTH + 3);
    assertThat(outboxRows()).as("none confirmed yet").isEqualTo(sent.size());

    proxy.releaseReplies();
    await().atMost(Duration.ofSeconds(10)).until(() -> outboxRows() == 0);
    List<String> expected = new ArrayList<>(List.of(canary));
    expected.addAll(sent);
    assertThat(received).as("in order, once each").containsExactlyElementsOf(expected);
  }

  /**
   * A command the relay's search found before its commit handed it over is held by that batch's transaction: added
   * to that same batch, its claim by id would return it again (a transaction does not skip its own locks), and it
   * would be published twice.
   */
  @Test
  void aCommandHandedOverAfterItsBatchFoundItBySearchingIsPublishedOnce() throws Exception {
    String canary = startRelayBehindProxy();

    proxy.holdReplies(); // every batch stays in flight
    List<String> expected = new ArrayList<>(List.of(canary));
    expected.addAll(handOverOneAtATime(OutboxRelay.DEPTH - 1));
    QueuedCommand found = queued(Names.commandExchange(SERVICE));
    relay.commandsWritten(); // the newest batch finds it by searching
    expected.add(found.message().messageId().toString());
    await().atMost(Duration.ofSeconds(10)).until(() -> received.contains(expected.get(expected.size() - 1)));
    QueuedCommand next = queued(Names.commandExchange(SERVICE));
    relay.committed(List.of(found, next)); // its commit's hand-over comes late, with a newer command
    expected.add(next.message().messageId().toString());
    await().atMost(Duration.ofSeconds(10)).until(() -> received.contains(expected.get(expected.size() - 1)));

    proxy.releaseReplies();
    await().atMost(Duration.ofSeconds(10)).until(() -> outboxRows() == 0);
    assertThat(received).as("in order, once each").containsExactlyElementsOf(expected);
  }

  /**
   * Hands over {@code n} commands one at a time, each once the one before it reached the queue (with the broker's
   * answers held back: none is confirmed); returns their message ids.
   */
  List<String> handOverOneAtATime(int n) throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      QueuedCommand q = queued(Names.commandExchange(SERVICE));
      relay.committed(List.of(q));
      String id = q.message().messageId().toString();
      ids.add(id);
      await("command " + (i + 1) + " published with no confirm back").atMost(Duration.ofSeconds(10))
          .until(() -> received.contains(id));
    }
    return ids;
  }

  /** A row inserted as a transaction of the runtime queues a command, with the message it holds. */
  QueuedCommand queued(String exchange) throws Exception {
    UUID id = UUID.randomUUID();
    OutboxMessage m = new OutboxMessage(id, exchange, Names.commandRoutingKey(SERVICE, "pay"), "instance-" + id,
        "{\"baton-step\":\"s\"}", new byte[] {'{', '}'});
    try (java.sql.Connection c = postgres.connect(); PreparedStatement ps = c.prepareStatement(
        "INSERT INTO outbox (message_id, exchange, routing_key, correlation_id, headers, body)"
            + " VALUES (?, ?, ?, ?, ?::jsonb, ?) RETURNING id")) {
      ps.setObject(1, id);
      ps.setString(2, m.exchange());
      ps.setString(3, m.routingKey());
      ps.setString(4, m.correlationId());
      ps.setString(5, m.headersJson());
      ps.setBytes(6, m.body());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new QueuedCommand(rs.getLong(1), m);
      }
    }
  }

  /** Fails on the code before: the refused command was set aside with a backoff and published again and again. */
  @Test
  void oneRefusedCommandAmongManyIsMarkedRefusedAndHandedOverAndEveryOtherIsConfirmedOnceInOrder() throws Exception {
    List<String> expected = new ArrayList<>();
    String poisoned = null;
    for (int i = 0; i < 700; i++) {
      if (i == 250) {
        poisoned = insert("relay.internal.ex", new byte[] {'{', '}'});
      } else {
        expected.add(insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'}));
      }
    }
    startRelay();

    assertRefusedWhileTheOthersFlowInOrder(poisoned, expected, Duration.ofSeconds(30), "403", "ACCESS_REFUSED");
    assertThat(limit.maxMessageSize()).as("a refusal that names no size teaches none").isEmpty();
  }

  /**
   * The brief's example: one command over the broker's {@code max_message_size} (128 MiB on RabbitMQ 3.x); the relay
   * learns the limit from the broker's reason.
   */
  @Test
  void aCommandOverTheBrokersMaxMessageSizeIsRefusedTheOthersFlowAndTheLimitIsLearned() throws Exception {
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      expected.add(insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'}));
    }
    String oversized = insert(Names.commandExchange(SERVICE), new byte[129 * 1024 * 1024]);
    for (int i = 0; i < 20; i++) {
      expected.add(insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'}));
    }
    startRelay();

    assertRefusedWhileTheOthersFlowInOrder(oversized, expected, Duration.ofSeconds(60), "406", "PRECONDITION_FAILED",
        "larger than");
    assertThat(limit.maxMessageSize()).as("the broker's max_message_size, from its reason").isPresent();
    assertThat(limit.commandBytes()).isEqualTo(limit.maxMessageSize().getAsLong() - BrokerMessageLimit.MARGIN);
  }

  /** A nack (a queue that takes nothing) is the broker's refusal too: marked refused at once, not retried. */
  @Test
  void aCommandTheBrokerNacksIsMarkedRefusedAndTheOthersFlow() throws Exception {
    List<String> expected = new ArrayList<>();
    expected.add(insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'}));
    String nacked = insert("relay.full.ex", new byte[] {'{', '}'});
    expected.add(insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'}));
    startRelay();

    assertRefusedWhileTheOthersFlowInOrder(nacked, expected, Duration.ofSeconds(30), "nack");
  }

  /**
   * The bad row is kept, marked refused with the broker's reason, never claimed again (published once: a
   * backoff would have sent it again within seconds), and the engine side is told; every other command arrives, in
   * the order of the outbox, and nothing is sent again and again. Commands the channel error left unconfirmed may
   * have reached the queue before it and are sent once more (same message id: at least once, workers dedupe);
   * confirmed ones never are.
   */
  void assertRefusedWhileTheOthersFlowInOrder(String bad, List<String> expected, Duration within,
      String... error) throws Exception {
    await().atMost(within).until(() -> new LinkedHashSet<>(received).size() >= expected.size() && outboxRows() == 1
        && refusedAttempts(bad) > 0 && handedOver.get() > 0);
    try (java.sql.Connection c = postgres.connect(); PreparedStatement ps = c.prepareStatement(
        "SELECT refused, next_attempt_at = 'infinity' AS never FROM outbox WHERE message_id = ?::uuid")) {
      ps.setString(1, bad);
      try (ResultSet rs = ps.executeQuery()) {
        assertThat(rs.next()).as("the refused row is kept for the engine").isTrue();
        assertThat(rs.getString("refused")).as("the broker's reason").contains(error);
        assertThat(rs.getBoolean("never")).as("never due again").isTrue();
      }
    }
    int arrived = received.size();
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
        .until(() -> received.size() == arrived && refusedAttempts(bad) == 1);
    assertThat(new ArrayList<>(new LinkedHashSet<>(received))).as("first arrivals").containsExactlyElementsOf(expected);
    assertThat(received.size() - expected.size()).as("sent again: at most what was in flight when the channel failed")
        .isLessThanOrEqualTo(OutboxRelay.DEPTH * 200);
  }

  /** How many times the row was given up on (0 while it has not been; 1 once refused, and not retried). */
  private int refusedAttempts(String messageId) throws Exception {
    try (java.sql.Connection c = postgres.connect(); PreparedStatement ps = c.prepareStatement(
        "SELECT attempts FROM outbox WHERE message_id = ?::uuid AND refused IS NOT NULL")) {
      ps.setString(1, messageId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  String insert(String exchange, byte[] body) throws Exception {
    String id = UUID.randomUUID().toString();
    try (java.sql.Connection c = postgres.connect(); PreparedStatement ps = c.prepareStatement(
        "INSERT INTO outbox (message_id, exchange, routing_key, correlation_id, headers, body)"
            + " VALUES (?::uuid, ?, ?, ?, '{\"baton-step\":\"s\"}'::jsonb, ?)")) {
      ps.setString(1, id);
      ps.setString(2, exchange);
      ps.setString(3, Names.commandRoutingKey(SERVICE, "pay"));
      ps.setString(4, "instance-" + id);
      ps.setBytes(5, body);
      ps.executeUpdate();
    }
    return id;
  }

  long outboxRows() throws Exception {
    try (java.sql.Connection c = postgres.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM outbox")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
