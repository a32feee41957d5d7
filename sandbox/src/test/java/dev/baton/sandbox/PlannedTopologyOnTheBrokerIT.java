package dev.baton.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The planned staircase behaves on the real broker: a nack climbs into the first tier and comes back after its TTL. */
class PlannedTopologyOnTheBrokerIT {

  static RabbitVhost vhost;
  static Connection connection;

  @BeforeAll
  static void setUp() {
    vhost = RabbitVhost.create("plan");
    connection = vhost.newConnection("plan-test");
  }

  @AfterAll
  static void tearDown() throws Exception {
    connection.close();
    vhost.close();
  }

  @Test
  void nackGoesToTheFirstTierAndComesBackAfterItsTtl() throws Exception {
    ServiceTopology t = TopologyPlanner.plan(new ServiceModel("payment", QueueType.CLASSIC,
        List.of(new ServiceModel.Command("pay", RetryStaircase.of(3, List.of("300ms", "1s")))), List.of()));
    try (Channel ch = connection.createChannel()) {
      AmqpTopology.declare(ch, t);
      ch.confirmSelect();
      ch.basicPublish("payment.command.topic.ex", "service.payment.pay",
          new AMQP.BasicProperties.Builder().deliveryMode(2).messageId("m1").headers(Map.of("baton-retries", 0)).build(),
          "{}".getBytes(StandardCharsets.UTF_8));
      ch.waitForConfirmsOrDie(5_000);

      GetResponse first = await().atMost(Duration.ofSeconds(5)).until(() -> ch.basicGet("q.payment.pay", false), r -> r != null);
      ch.basicNack(first.getEnvelope().getDeliveryTag(), false, false);
      long nackedAt = System.nanoTime();

      // It waits out the first tier, then the broker sends it back through the command exchange.
      GetResponse again = await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
          .until(() -> ch.basicGet("q.payment.pay", false), r -> r != null);
      assertThat(Duration.ofNanos(System.nanoTime() - nackedAt)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
      assertThat(again.getProps().getMessageId()).isEqualTo("m1");
      ch.basicAck(again.getEnvelope().getDeliveryTag(), false);

      // Publishing to the retry exchange by dead-letter queue name parks the message.
      ch.basicPublish("payment.retry.direct.ex", "q.dlx.payment.pay", null, "{}".getBytes(StandardCharsets.UTF_8));
      ch.waitForConfirmsOrDie(5_000);
      await().atMost(Duration.ofSeconds(5)).until(() -> ch.messageCount("q.dlx.payment.pay") == 1);
    }
  }

  /**
   * On quorum queues, with the arguments the planner gives them (at-least-once dead-lettering, reject-publish, an
   * explicit delivery limit; docs/design.md#platform-notes), the broker accepts the plan and every message of a batch
   * makes the nack → first tier → command queue round trip: none lost, none parked.
   */
  @Test
  void quorumRoundTripThroughTheFirstTierLosesNothing() throws Exception {
    ServiceTopology t = TopologyPlanner.plan(new ServiceModel("quorate", QueueType.QUORUM,
        List.of(new ServiceModel.Command("pay", RetryStaircase.of(3, List.of("200ms", "1s")))), List.of()));
    int n = 200;
    try (Channel ch = connection.createChannel()) {
      AmqpTopology.declare(ch, t);
      ch.confirmSelect();
      for (int i = 0; i < n; i++) {
        ch.basicPublish("quorate.command.topic.ex", "service.quorate.pay", true,
            new AMQP.BasicProperties.Builder().deliveryMode(2).messageId("m" + i).build(),
            "{}".getBytes(StandardCharsets.UTF_8));
      }
      ch.waitForConfirmsOrDie(10_000);
      java.util.Set<String> nacked = new java.util.HashSet<>();
      java.util.Set<String> back = new java.util.HashSet<>();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() -> {
        GetResponse r;
        while ((r = ch.basicGet("q.quorate.pay", false)) != null) {
          String id = r.getProps().getMessageId();
          if (nacked.add(id)) {
            ch.basicNack(r.getEnvelope().getDeliveryTag(), false, false); // into the first tier
          } else {
            back.add(id);
            ch.basicAck(r.getEnvelope().getDeliveryTag(), false);
          }
        }
        return back.size() == n;
      });
      assertThat(nacked).hasSize(n);
      assertThat(ch.messageCount("q.dlx.quorate.pay")).isZero();
      assertThat(ch.messageCount("q.retry.quorate.pay.200ms")).isZero();
      assertThat(vhost.management().getQueue(vhost.name(), "q.quorate.pay").getArguments())
          .containsEntry("x-dead-letter-strategy", "at-least-once").containsEntry("x-overflow", "reject-publish")
          .containsEntry("x-delivery-limit", 50);
    }
  }
}
