package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.SocketConfigurators;
import java.net.Socket;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import com.rabbitmq.client.GetResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The worker keeps consuming when its connection drops or its queue is re-created. */
class RecoveryIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-recovery");

  /** Every socket the worker's connections open, so a test can cut them. */
  static final List<Socket> sockets = new CopyOnWriteArrayList<>();

  private static BatonWorker.Builder quicklyRecovering(ServiceModel model) {
    ConnectionFactory factory = broker.vhost.connectionFactory();
    factory.setSocketConfigurator(socket -> {
      SocketConfigurators.defaultConfigurator().configure(socket);
      sockets.add(socket);
    });
    factory.setAutomaticRecoveryEnabled(false); // the SDK switches it on regardless
    factory.setNetworkRecoveryInterval(200);
    return BatonWorker.builder().environment(new WorkerEnvironment(model, 10)).connectionFactory(factory)
        .connectionName("recovery-" + model.service());
  }

  @Test
  void aDroppedConnectionIsRecoveredWithItsConsumer() throws Exception {
    ServiceModel model = TestBroker.commandService("payment", "pay", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    List<String> handled = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = quicklyRecovering(model)
        .command("pay", cmd -> {
          handled.add(cmd.messageId());
          return CommandResult.success();
        })
        .build()) {
      sockets.clear();
      worker.start();
      broker.sendCommand("payment", "pay", "before", commandBody("i-1", "{}"));
      broker.take(events);

      // The network drops the worker's connection.
      sockets.forEach(RecoveryIT::closeQuietly);

      broker.sendCommand("payment", "pay", "after", commandBody("i-2", "{}"));
      assertThat(broker.take(events).getProps().getCorrelationId()).isEqualTo("i-after");
    }
    assertThat(handled).containsExactly("before", "after");
    assertThat(broker.count("q.payment.pay")).isZero();
  }

  @Test
  void aConnectionDroppedWhileAHandlerWorksDoesNotRunTheHandlerAgain() throws Exception {
    ServiceModel model = TestBroker.commandService("ledger", "book", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch working = new CountDownLatch(1);
    CountDownLatch mayFinish = new CountDownLatch(1);
    sockets.clear();

    try (BatonWorker worker = quicklyRecovering(model)
        .command("book", cmd -> {
          calls.incrementAndGet();
          working.countDown();
          mayFinish.await(5, TimeUnit.SECONDS);
          return CommandResult.success(Map.of("entry", 1));
        })
        .build()) {
      worker.start();
      broker.sendCommand("ledger", "book", "m-1", commandBody("i-1", "{}"));
      assertThat(working.await(5, TimeUnit.SECONDS)).isTrue();

      sockets.forEach(RecoveryIT::closeQuietly);
      // The broker redelivers the unacked command on the recovered channel while the handler still works.
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 2);
      mayFinish.countDown();

      GetResponse event = broker.take(events);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.book.success");
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(calls).hasValue(1);
    assertThat(broker.count(events)).isZero();
    assertThat(broker.count("q.ledger.book")).isZero();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (java.io.IOException e) {
      // already closed
    }
  }

  @Test
  void aQueueDeletedAndDeclaredAgainIsConsumedAgain() throws Exception {
    ServiceModel model = TestBroker.commandService("stock", "reserve", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    List<String> handled = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = quicklyRecovering(model)
        .command("reserve", cmd -> {
          handled.add(cmd.messageId());
          return CommandResult.success();
        })
        .build()) {
      worker.start();
      try (var admin = broker.vhost.newConnection("deleter"); var ch = admin.createChannel()) {
        ch.queueDelete("q.stock.reserve");
      }
      broker.declare(model); // the operator puts it back
      await().atMost(TestBroker.WAIT).pollInterval(Duration.ofMillis(50))
          .until(() -> broker.consumers("q.stock.reserve") == 1);

      broker.sendCommand("stock", "reserve", "again", commandBody("i-3", "{}"));
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.reserve.success");
    }
    assertThat(handled).containsExactly("again");
  }
}
