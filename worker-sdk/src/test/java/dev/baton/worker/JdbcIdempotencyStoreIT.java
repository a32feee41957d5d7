package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.EventResult;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.sandbox.PostgresDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The SDK's JDBC idempotency store on the real PostgreSQL: the effect and the record commit together, so a command
 * redelivered after a crash between the commit and the ack is answered from the store instead of running again.
 */
class JdbcIdempotencyStoreIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-jdbc-store");
  static PostgresDatabase postgres;
  static PGSimpleDataSource dataSource;

  @BeforeAll
  static void database() throws Exception {
    postgres = PostgresDatabase.create("sdk_store");
    dataSource = new PGSimpleDataSource();
    dataSource.setURL(postgres.jdbcUrl());
    dataSource.setUser(postgres.user());
    dataSource.setPassword(postgres.password());
    JdbcIdempotencyStore.createTable(dataSource, JdbcIdempotencyStore.DEFAULT_TABLE);
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE payment (message_id text NOT NULL, worker text NOT NULL)");
    }
  }

  @AfterAll
  static void drop() {
    postgres.close();
  }

  static void pay(Connection c, Command cmd, String worker) throws Exception {
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO payment VALUES (?, ?)")) {
      ps.setString(1, cmd.messageId());
      ps.setString(2, worker);
      ps.executeUpdate();
    }
  }

  @Test
  void aCommandRedeliveredAfterACrashBetweenCommitAndAckIsAnsweredFromTheStoreNotRunTwice() throws Exception {
    ServiceModel model = TestBroker.commandService("jdbc-pay", "pay", RetryStaircase.NONE);
    String events = broker.declareWithEventProbe(model);
    JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource);
    CountDownLatch committed = new CountDownLatch(1);
    AtomicInteger secondWorkerCalls = new AtomicInteger();

    CommandHandler charge = store.transactional((cmd, c) -> {
      pay(c, cmd, "first");
      return CommandResult.success(Map.of("paidBy", "first"));
    });
    BatonWorker first = broker.worker(model).idempotency(store).shutdownTimeout(Duration.ofMillis(500))
        .command("pay", cmd -> {
          CommandResult result = charge.handle(cmd); // effect and record committed
          committed.countDown();
          new CountDownLatch(1).await(); // and the process "dies" before it publishes or acks
          return result;
        })
        .build();
    first.start();
    broker.sendCommand("jdbc-pay", "pay", "m-crash", commandBody("i-crash", "{\"amount\":10}"));
    assertThat(committed.await(10, TimeUnit.SECONDS)).isTrue();

    try (BatonWorker second = broker.worker(model).idempotency(store)
        .command("pay", store.transactional((cmd, c) -> {
          secondWorkerCalls.incrementAndGet();
          pay(c, cmd, "second");
          return CommandResult.success(Map.of("paidBy", "second"));
        }))
        .build()) {
      second.start();
      first.close(); // its connection goes: the broker redelivers the unacked command, to the second worker

      GetResponse event = broker.take(events);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
      assertThat(event.getProps().getMessageId())
          .isEqualTo(ResultEvents.eventMessageId("m-crash", EventResult.SUCCESS));
      JsonNode body = TestBroker.json(event);
      assertThat(body.get("output").get("paidBy").asText()).isEqualTo("first");
      await().atMost(TestBroker.WAIT).until(() -> second.inFlight() == 0);
    }
    assertThat(secondWorkerCalls).hasValue(0);
    assertThat(count("SELECT count(*) FROM payment WHERE message_id = 'm-crash'")).isEqualTo(1);
    assertThat(broker.count("q.jdbc-pay.pay")).isZero();
    assertThat(broker.count(events)).isZero();
  }

  @Test
  void aDuplicateThatGetsPastTheLookupRollsBackItsEffectAndAnswersWithTheFirstOutcome() throws Exception {
    JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource);
    AtomicInteger runs = new AtomicInteger();
    CommandHandler handler = store.transactional((cmd, c) -> {
      String by = "run-" + runs.incrementAndGet();
      pay(c, cmd, by);
      return CommandResult.success(Map.of("paidBy", by));
    });
    Command command = command("m-race");

    assertThat(handler.handle(command).output().get("paidBy").asText()).isEqualTo("run-1");
    // As when two workers got the same command at once: the second's record finds the first's, and it rolls back.
    assertThat(handler.handle(command).output().get("paidBy").asText()).isEqualTo("run-1");
    assertThat(runs).hasValue(2);
    assertThat(count("SELECT count(*) FROM payment WHERE message_id = 'm-race'")).isEqualTo(1);
    assertThat(store.find("m-race")).hasValueSatisfying(o -> assertThat(o.output().get("paidBy").asText())
        .isEqualTo("run-1"));
  }

  @Test
  void aFailingEffectLeavesNeitherEffectNorRecordAndRememberKeepsTheFirstOutcome() throws Exception {
    JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource);
    CommandHandler failing = store.transactional((cmd, c) -> {
      pay(c, cmd, "doomed");
      throw new IllegalStateException("bank said no");
    });
    assertThatThrownBy(() -> failing.handle(command("m-fail"))).hasMessage("bank said no");
    assertThat(count("SELECT count(*) FROM payment WHERE message_id = 'm-fail'")).isZero();
    assertThat(store.find("m-fail")).isEmpty();

    store.remember("m-kept", CommandResult.failed("LIMIT", "over the limit"));
    store.remember("m-kept", CommandResult.success());
    assertThat(store.find("m-kept")).contains(CommandResult.failed("LIMIT", "over the limit"));
    assertThatThrownBy(() -> new JdbcIdempotencyStore(dataSource, "x; DROP TABLE payment"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static Command command(String messageId) {
    InboundMessage message = InboundMessage.of(new com.rabbitmq.client.Envelope(1, false, "ex", "key"),
        TestBroker.commandProperties(messageId, "i-" + messageId, "pay"), commandBody("i-1", "{}").getBytes());
    return new Command("pay", message, Bodies.readObject(message.body()), 0, true);
  }

  private static long count(String sql) throws Exception {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
