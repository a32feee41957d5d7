package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static dev.baton.worker.TestBroker.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.http.client.domain.UserPermissions;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Everything the SDK does works as a broker user with exactly the permissions of docs/design.md#security: configure nothing,
 * write only the service's event and retry exchanges, read only its own queues.
 */
class WorkerPermissionsIT {

  static final ServiceModel MODEL = new ServiceModel("payment", QueueType.CLASSIC,
      List.of(new ServiceModel.Command("pay", RetryStaircase.of(3, List.of("200ms", "400ms")))),
      List.of(new ServiceModel.Subscription("stock_low", "inventory", "*.reserve.failed", RetryStaircase.NONE)));

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-permissions");
  static ServiceTopology topology;
  static String user;
  static final String PASSWORD = UUID.randomUUID().toString();

  @BeforeAll
  static void createWorkerUser() {
    topology = broker.declare(MODEL);
    user = "baton-test-payment-" + UUID.randomUUID().toString().substring(0, 8);
    broker.vhost.management().createUser(user, PASSWORD.toCharArray(), List.of());
    PermissionSpec p = topology.workerPermissions();
    assertThat(p).isEqualTo(new PermissionSpec(Names.NOTHING_REGEX, Names.workerWritableExchangesRegex("payment"),
        Names.consumerQueuesRegex("payment")));
    UserPermissions permissions = new UserPermissions();
    permissions.setConfigure(p.configure());
    permissions.setWrite(p.write());
    permissions.setRead(p.read());
    broker.vhost.management().updatePermissions(broker.vhost.name(), user, permissions);
  }

  @AfterAll
  static void deleteUser() {
    broker.vhost.management().deleteUser(user);
  }

  @Test
  void everyPathWorksWithTheWorkersOwnPermissions() throws Exception {
    String events = broker.probe(topology.eventExchange(), "#");
    List<String> notified = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = BatonWorker.builder()
        .environment(new dev.baton.contract.WorkerEnvironment(MODEL, 5))
        .connectionFactory(broker.vhost.connectionFactory(user, PASSWORD))
        .command("pay", cmd -> switch (cmd.input().path("case").asText()) {
          case "ok" -> CommandResult.success(Map.of("paymentId", "p-1"));
          case "limit" -> CommandResult.failed("LIMIT", "amount over limit");
          default -> throw new IllegalStateException("bank unavailable");
        })
        .subscription("stock_low", event -> {
          notified.add(event.routingKey());
          if (event.body().path("explode").asBoolean()) {
            throw new IllegalStateException("cannot notify");
          }
        })
        .build()) {
      worker.start();

      broker.sendCommand("payment", "pay", "ok", commandBody("i-ok", "{\"case\":\"ok\"}"));
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");

      broker.sendCommand("payment", "pay", "limit", commandBody("i-limit", "{\"case\":\"limit\"}"));
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.pay.failed");

      // Retries through the retry exchange, then the parking lot and the error event.
      broker.sendCommand("payment", "pay", "boom", commandBody("i-boom", "{\"case\":\"boom\"}"));
      GetResponse parked = broker.take("q.dlx.payment.pay");
      assertThat(header(parked, "baton-retries")).isEqualTo("2");
      assertThat(header(parked, "x-exception-message")).isEqualTo("bank unavailable");
      GetResponse error = broker.take(events);
      assertThat(error.getEnvelope().getRoutingKey()).isEqualTo("order.pay.error");
      assertThat(json(error).get("reason").asText()).isEqualTo("bank unavailable");

      // A poison message parks at once.
      broker.sendCommand("payment", "pay", "poison", "not json");
      assertThat(header(broker.take("q.dlx.payment.pay"), "x-exception-message")).startsWith("body is not JSON");
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.pay.error");

      // A subscription: handled, and a failing one parked.
      AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId("e-1").deliveryMode(2).build();
      broker.publish("inventory.event.topic.ex", "order.reserve.failed", props, "{\"explode\":false}");
      broker.publish("inventory.event.topic.ex", "order.reserve.failed",
          props.builder().messageId("e-2").build(), "{\"explode\":true}");
      GetResponse parkedEvent = broker.take("q.dlx.payment.stock_low");
      assertThat(parkedEvent.getProps().getMessageId()).isEqualTo("e-2");
      assertThat(notified).containsExactly("order.reserve.failed", "order.reserve.failed");
    }
    assertThat(broker.count("q.payment.pay")).isZero();
    assertThat(broker.count("q.payment.stock_low")).isZero();
    assertThat(broker.count(events)).isZero();
  }

  @Test
  void theBrokerRefusesTheWorkerUserAnythingElse() throws Exception {
    ConnectionFactory factory = broker.vhost.connectionFactory(user, PASSWORD);
    factory.setAutomaticRecoveryEnabled(false);
    try (Connection c = factory.newConnection("permission-probe")) {
      Channel publish = c.createChannel();
      publish.confirmSelect();
      publish.basicPublish(Names.commandExchange("payment"), "service.payment.pay", null,
          "{}".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> publish.waitForConfirmsOrDie(5_000)).hasStackTraceContaining("ACCESS_REFUSED");

      Channel publishDefault = c.createChannel();
      publishDefault.confirmSelect();
      publishDefault.basicPublish("", "q.payment.pay", null, "{}".getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> publishDefault.waitForConfirmsOrDie(5_000)).hasStackTraceContaining("ACCESS_REFUSED");

      Channel declare = c.createChannel();
      assertThatThrownBy(() -> declare.queueDeclare("q.payment.extra", true, false, false, null))
          .hasStackTraceContaining("ACCESS_REFUSED");

      Channel read = c.createChannel();
      assertThatThrownBy(() -> read.basicGet("q.dlx.payment.pay", false)).hasStackTraceContaining("ACCESS_REFUSED");
    }
  }
}
