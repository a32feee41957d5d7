package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.http.client.domain.ConnectionInfo;
import dev.baton.contract.TlsTrust;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.ledger.LedgerWorker;
import dev.baton.reliability.suite.Rig;
import dev.baton.reliability.suite.Wait;
import dev.baton.runtime.app.RuntimeSettings;
import dev.baton.runtime.broker.AmqpConnector;
import dev.baton.runtime.store.Database;
import dev.baton.worker.BatonWorker;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS end to end against the suite's private servers (the shared RabbitMQ has no TLS listener and the shared
 * PostgreSQL has {@code ssl = off}): the private RabbitMQ node has an AMQPS listener and the private PostgreSQL
 * {@code ssl = on}, both with a server certificate for localhost/127.0.0.1 signed by a CA the suite generates.
 * The runtime and an SDK worker run a saga over {@code amqps://} with {@code BATON_RABBITMQ_CA_FILE}; the runtime's
 * database is reached with {@code sslmode=verify-full}; the wrong CA, another host name or the JVM's default trust
 * store are refused (there is no "trust everything").
 */
class TlsIT {

  static Infra infra;
  static Rig rig;
  static final List<BatonWorker> workers = new ArrayList<>();

  @BeforeAll
  static void start() {
    infra = Infra.get();
    rig = Rig.create(infra, "tls");
  }

  @AfterAll
  static void stop() {
    workers.forEach(BatonWorker::close);
    rig.close();
  }

  @Test
  void aSagaRunsOverAmqpsAndVerifiedPostgresql() throws Exception {
    String ca = infra.ca.caCert().toString();
    RuntimeSettings settings = rig.runtime().settings().toBuilder()
        .amqpUri(infra.rabbit.amqpsUri("guest", "guest", rig.vhost)).amqpCaFile(ca)
        .databaseUrl(infra.postgres.jdbcUrlVerifyFull(rig.runtimeDb, infra.ca.caCert()))
        .build();
    rig.runtime().startInProcess(settings);
    for (String service : List.of("stock", "pay", "ship")) {
      Map<String, String> env = new HashMap<>(new WorkerEnvironment(Rig.model(service), 10).variables());
      env.put(WorkerEnvironment.RABBITMQ_URI, infra.rabbit.amqpsUri("guest", "guest", rig.vhost));
      env.put(TlsTrust.CA_FILE_VARIABLE, ca);
      BatonWorker w = LedgerWorker.build(BatonWorker.builder().fromEnvironment(env), Rig.model(service), rig.ledger,
          service + "-tls", 0).connectionName("baton-worker-" + service + "-tls").build();
      w.start();
      workers.add(w);
    }
    assertThat(rig.api().post("/api/v1/namespaces/default/workflows/order/instances", "{\"businessKey\":\"tls-1\"}")
        .statusCode()).isEqualTo(201);
    assertThat(Wait.until(Duration.ofSeconds(30), () -> rig.tally().succeeded() == 1)).isTrue();
    assertThat(rig.ledger.effects()).isEqualTo(3);

    // every connection of the vhost, the runtime's and the workers', is TLS
    Wait.until(Duration.ofSeconds(15), () -> baton(rig.vhost).size() >= 5);
    List<ConnectionInfo> connections = baton(rig.vhost);
    assertThat(connections).hasSizeGreaterThanOrEqualTo(5)
        .allSatisfy(c -> assertThat(c.getSslProtocol()).as(c.getName()).startsWithIgnoringCase("TLSv1."));
    // and so is every database connection of the runtime
    try (Connection c = DriverManager.getConnection(infra.postgres.jdbcUrl("postgres"), "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*), count(*) FILTER (WHERE"
            + " ssl.ssl) FROM pg_stat_activity a JOIN pg_stat_ssl ssl USING (pid) WHERE a.datname = '"
            + rig.runtimeDb + "' AND a.application_name = 'baton-runtime'")) {
      rs.next();
      assertThat(rs.getLong(1)).isPositive();
      assertThat(rs.getLong(2)).isEqualTo(rs.getLong(1));
    }
  }

  @Test
  void theWrongCaAnotherHostNameOrTheDefaultTrustStoreAreRefused() {
    String good = infra.rabbit.amqpsUri("guest", "guest", rig.vhost);
    String otherHost = good.replace("@localhost:", "@127.0.0.2:");
    assertThatThrownBy(() -> new AmqpConnector(good, null, null, infra.ca.otherCaCert().toString()).open("wrong-ca"))
        .hasStackTraceContaining("PKIX");
    assertThatThrownBy(() -> new AmqpConnector(good, null, null, null).open("default-trust"))
        .hasStackTraceContaining("PKIX");
    assertThatThrownBy(() -> new AmqpConnector(otherHost, null, null, infra.ca.caCert().toString()).open("bad-host"))
        .hasStackTraceContaining("127.0.0.2");
    Map<String, String> env = new HashMap<>(new WorkerEnvironment(Rig.model("pay"), 10).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, good);
    env.put(TlsTrust.CA_FILE_VARIABLE, infra.ca.otherCaCert().toString());
    BatonWorker w = LedgerWorker.build(BatonWorker.builder().fromEnvironment(env), Rig.model("pay"), rig.ledger, "x", 0)
        .build();
    assertThatThrownBy(w::start).hasMessageContaining("cannot connect to RabbitMQ at localhost:");
  }

  @Test
  void postgresqlSslModesWorkAndTheWrongCaIsRefused() throws Exception {
    String db = rig.runtimeDb;
    String require = infra.postgres.jdbcUrl(db) + "?sslmode=require";
    try (Connection c = DriverManager.getConnection(require, "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
      rs.next();
      assertThat(rs.getBoolean(1)).isTrue();
    }
    RuntimeSettings wrongCa = rig.runtime().settings().toBuilder()
        .databaseUrl(infra.postgres.jdbcUrlVerifyFull(db, infra.ca.otherCaCert())).build();
    assertThatThrownBy(() -> Database.open(wrongCa.database()).close()).isNotNull();
    String byIp = "jdbc:postgresql://127.0.0.2:" + infra.postgres.port() + "/" + db + "?sslmode=verify-full&sslrootcert="
        + infra.ca.caCert();
    assertThatThrownBy(() -> DriverManager.getConnection(byIp, "postgres", "").close()).isNotNull();
  }

  /** The runtime's and the workers' connections (the management API lists them once it has their statistics). */
  static List<ConnectionInfo> baton(String vhost) {
    return infra.rabbit.connections(vhost, "baton-");
  }
}
