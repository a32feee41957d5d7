package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.sandbox.LocalServices;
import dev.baton.testing.TcpProxy;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operator reaches the management API and AMQP through proxies the test cuts (the shared broker keeps running for
 * everyone else): resources go Ready=False/BrokerUnavailable, deletion waits, and all recovers once it is back (the
 * AMQP connection the cut closed is opened again).
 */
class BrokerUnavailableIT {

  static final String NS = "outage";
  static TcpProxy proxy;
  static TcpProxy amqp;
  static OperatorFixture f;

  @BeforeAll
  static void start() {
    URI management = URI.create(LocalServices.RABBITMQ_MANAGEMENT_URL);
    proxy = TcpProxy.start(management.getHost(), management.getPort());
    amqp = TcpProxy.start(LocalServices.RABBITMQ_HOST, LocalServices.RABBITMQ_PORT);
    f = OperatorFixture.start("outage", s -> s.toBuilder()
        .managementUrl("http://127.0.0.1:" + proxy.port() + management.getPath())
        .operatorAmqpUrl("amqp://127.0.0.1:" + amqp.port()).build());
  }

  @AfterAll
  static void stop() {
    f.close();
    proxy.close();
    amqp.close();
  }

  @Test
  void unavailableThenRecovered() {
    f.create(workerService(NS, "steady", "work"));
    f.awaitReady(WorkerService.class, NS, "steady", true, "Ready");

    proxy.cut();
    amqp.cut();
    var down = f.awaitReady(WorkerService.class, NS, "steady", false, "BrokerUnavailable");
    assertThat(down.getMessage()).contains("cannot reach the RabbitMQ management API at http://127.0.0.1:" + proxy.port());
    f.create(workerService(NS, "newcomer", "work"));
    f.awaitReady(WorkerService.class, NS, "newcomer", false, "BrokerUnavailable");
    f.delete(WorkerService.class, NS, "steady");
    // The finalizer holds the resource while its user and queues cannot be removed.
    await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
        .until(() -> f.get(WorkerService.class, NS, "steady") != null);

    proxy.restore();
    amqp.restore();
    f.awaitReady(WorkerService.class, NS, "newcomer", true, "Ready");
    await().atMost(WITHIN).until(() -> f.get(WorkerService.class, NS, "steady") == null);
    assertThat(f.management.getUser(f.username("steady"))).isNull();
    assertThat(f.management.getQueue(f.vhost.name(), "q.steady.work")).isNull();
    assertThat(f.management.getQueue(f.vhost.name(), "q.newcomer.work")).isNotNull();
  }
}
