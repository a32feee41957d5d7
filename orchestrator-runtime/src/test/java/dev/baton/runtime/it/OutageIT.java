package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.http.client.Client;
import com.rabbitmq.http.client.domain.ConnectionInfo;
import dev.baton.contract.Names;
import dev.baton.runtime.it.TestWorker.Reply;
import dev.baton.sandbox.LocalServices;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime loses its database or its broker connections in the middle of the work: nothing is lost, nothing is
 * applied twice.
 */
class OutageIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("outage");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  /**
   * The database refuses connections (and the open ones are killed) while results arrive: nothing is ACKed, the API
   * and /healthz say so, and once the database is back every instance completes, each step once.
   */
  @Test
  void eventsWaitUnacknowledgedUntilTheDatabaseIsBack() throws Exception {
    h.apply("outage", spec("order", step("one", "out-a", "one", null), step("two", "out-a", "two", null)));
    TestWorker w = h.worker()
        .serve("q.out-a.one", "out-a", "one", c -> Reply.HOLD)
        .serve("q.out-a.two", "out-a", "two", c -> Reply.success(null));
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      ids.add(h.startOk("outage", "outage-" + i));
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> w.heldCount() == 30);

    database(false);
    try {
      w.release(c -> Reply.success(null)); // 30 results arrive while the database is away
      RuntimeHarness.Response health = h.get("/healthz");
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.json().get("database").asText()).isEqualTo("DOWN");
      RuntimeHarness.Response start = h.start("outage", "during-outage", "{}");
      assertThat(start.status()).isEqualTo(503);
      assertThat(start.json().get("error").asText()).isEqualTo("ServiceUnavailable");
    } finally {
      database(true);
    }

    for (UUID id : ids) {
      h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30));
    }
    assertThat(w.ledger()).hasSize(60).allSatisfy((k, v) -> assertThat(v).as(k).isEqualTo(1));
    assertThat(h.get("/healthz").status()).isEqualTo(200);
    try (Channel ch = h.amqp.createChannel()) {
      assertThat(ch.messageCount(Names.orchestratorDeadLetterQueue("outage"))).isZero();
    }
  }

  /** The broker drops the runtime's connections mid-flight: they recover, and the work completes exactly once. */
  @Test
  void brokerConnectionsDroppedMidFlightRecover() throws Exception {
    h.apply("blip", spec("order", step("one", "blip-a", "one", null), step("two", "blip-a", "two", null)));
    TestWorker w = h.worker()
        .serve("q.blip-a.one", "blip-a", "one", c -> Reply.success(null))
        .serve("q.blip-a.two", "blip-a", "two", c -> Reply.success(null));
    List<UUID> ids = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      ids.add(h.startOk("blip", "blip-" + i));
    }
    Client management = h.vhost.management();
    await().atMost(Duration.ofSeconds(10)).until(() -> runtimeConnections(management).size() == 2);
    for (ConnectionInfo c : runtimeConnections(management)) {
      management.closeConnection(c.getName(), "test: connection dropped mid-flight");
    }
    // Started while the connections are down (recovery waits 2 s): the outbox relay's rounds fail meanwhile.
    for (int i = 300; i < 350; i++) {
      ids.add(h.startOk("blip", "blip-" + i));
    }
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> assertThat(
        h.count("SELECT count(*) FROM workflow_instance WHERE workflow = 'blip' AND status = 'SUCCEEDED'"))
        .isEqualTo(ids.size()));
    assertThat(w.ledger()).hasSize(2 * ids.size()).allSatisfy((k, v) -> assertThat(v).as(k).isEqualTo(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> h.get("/healthz").status() == 200);
    // Recovery brings the relay's channel back once: none opened as a replacement next to the recovered one (a
    // leak of one idle channel per outage, seen in the soak). Nothing is parked here, so the publisher connection
    // carries the relay's channel only. The management API refreshes channel counts every few seconds.
    await().atMost(Duration.ofSeconds(30)).during(Duration.ofSeconds(6))
        .until(() -> publisherChannels(management) == 1);
  }

  private static int publisherChannels(Client management) {
    return runtimeConnections(management).stream()
        .filter(c -> c.getClientProperties().getConnectionName().equals("baton-runtime-publisher"))
        .mapToInt(ConnectionInfo::getChannels).sum();
  }

  private static List<ConnectionInfo> runtimeConnections(Client management) {
    return management.getConnections().stream()
        .filter(c -> h.vhost.name().equals(c.getVhost()) && c.getClientProperties() != null
            && c.getClientProperties().getConnectionName() != null
            && c.getClientProperties().getConnectionName().startsWith("baton-runtime-"))
        .toList();
  }

  /** Refuses (and cuts) or allows again connections to this test's database only. */
  private static void database(boolean allow) throws Exception {
    try (Connection admin = DriverManager.getConnection(LocalServices.postgresUrl("postgres"),
        LocalServices.DATABASE_USERNAME, LocalServices.DATABASE_PASSWORD); Statement s = admin.createStatement()) {
      s.execute("ALTER DATABASE " + h.database.name() + " ALLOW_CONNECTIONS " + allow);
      if (!allow) {
        s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + h.database.name() + "'");
      }
    }
  }
}
