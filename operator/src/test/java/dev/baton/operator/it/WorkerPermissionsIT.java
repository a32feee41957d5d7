package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.workerService;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/design.md#security enforced by the broker itself: with the credentials from its Secret, a worker publishes its events,
 * but not commands, and reads only its own queues.
 */
class WorkerPermissionsIT {

  static final String NS = "security";
  static OperatorFixture f;
  static Connection payment;

  @BeforeAll
  static void start() throws Exception {
    f = OperatorFixture.start("perm");
    f.create(workerService(NS, "payment", "pay", "refund"));
    f.create(workerService(NS, "inventory", "reserve"));
    f.awaitReady(WorkerService.class, NS, "payment", true, "Ready");
    f.awaitReady(WorkerService.class, NS, "inventory", true, "Ready");
    Map<String, String> secret = TopologyOnTheBrokerIT.decode(f.get(Secret.class, NS, "payment-broker-credentials"));
    ConnectionFactory cf = new ConnectionFactory();
    cf.setUri(secret.get("uri"));
    payment = cf.newConnection("payment-worker");
  }

  @AfterAll
  static void stop() throws Exception {
    if (payment != null) {
      payment.close();
    }
    f.close();
  }

  @Test
  void publishesToItsOwnEventAndRetryExchangesWithConfirms() throws Exception {
    try (Channel ch = payment.createChannel()) {
      ch.confirmSelect();
      ch.basicPublish("payment.event.topic.ex", "order.pay.success", props(), body());
      ch.basicPublish("payment.retry.direct.ex", "q.dlx.payment.pay", props(), body());
      ch.waitForConfirmsOrDie(5_000);
    }
  }

  @Test
  void publishingACommandIsRefused() throws Exception {
    for (String exchange : new String[] {"payment.command.topic.ex", "inventory.command.topic.ex"}) {
      Channel ch = payment.createChannel();
      ch.confirmSelect();
      assertThatThrownBy(() -> {
        ch.basicPublish(exchange, "service.inventory.reserve", props(), body());
        ch.waitForConfirmsOrDie(5_000);
      }).as(exchange).isNotNull();
      assertRefused(ch.getCloseReason(), exchange);
    }
  }

  @Test
  void readsItsOwnQueuesOnly() throws Exception {
    try (Channel ch = payment.createChannel()) {
      String tag = ch.basicConsume("q.payment.pay", false, new DefaultConsumer(ch));
      ch.basicCancel(tag);
    }
    Channel other = payment.createChannel();
    assertThatThrownBy(() -> other.basicConsume("q.inventory.reserve", false, new DefaultConsumer(other)))
        .hasCauseInstanceOf(ShutdownSignalException.class);
    assertRefused(other.getCloseReason(), "q.inventory.reserve");
  }

  @Test
  void declaresNothing() {
    Channel[] ch = new Channel[1];
    assertThatThrownBy(() -> {
      ch[0] = payment.createChannel();
      ch[0].queueDeclare("q.payment.mine", true, false, false, null);
    }).hasCauseInstanceOf(ShutdownSignalException.class);
    assertRefused(ch[0].getCloseReason(), "queue.declare");
  }

  private static void assertRefused(ShutdownSignalException reason, String what) {
    assertThat(reason).as(what + " closes the channel").isNotNull();
    AMQP.Channel.Close close = (AMQP.Channel.Close) reason.getReason();
    assertThat(close.getReplyCode()).as(what).isEqualTo(403);
    assertThat(close.getReplyText()).as(what).startsWith("ACCESS_REFUSED");
  }

  private static AMQP.BasicProperties props() {
    return new AMQP.BasicProperties.Builder().deliveryMode(2).contentType("application/json").build();
  }

  private static byte[] body() {
    return "{}".getBytes(StandardCharsets.UTF_8);
  }
}
