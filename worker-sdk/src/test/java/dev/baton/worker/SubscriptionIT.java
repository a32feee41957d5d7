package dev.baton.worker;

import static dev.baton.worker.TestBroker.header;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.EventResult;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Subscriptions: events in, the same staircase and parking lot, no result events out. */
class SubscriptionIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-subscription");

  record Failure(String errorCode, String reason) {}

  static ServiceModel sms(String service, String source) {
    return new ServiceModel(service, QueueType.CLASSIC, List.of(), List.of(new ServiceModel.Subscription(
        "order_pay_failed_notify", source, "*.pay.failed", RetryStaircase.of(3, List.of("200ms", "300ms")))));
  }

  /** An event as the payment worker publishes it, carrying the payment worker's own baton-retries. */
  static void publishPayFailed(String source, String messageId) throws Exception {
    Map<String, Object> headers = TestBroker.commandHeaders("i-" + messageId, "pay");
    headers.put("baton-retries", 2);
    broker.publish(source + ".event.topic.ex", "order.pay.failed",
        new AMQP.BasicProperties.Builder().messageId(messageId).correlationId("i-" + messageId)
            .contentType("application/json").deliveryMode(2).headers(headers).build(),
        "{\"instanceId\":\"i-" + messageId + "\",\"step\":\"charge\",\"attempt\":1,\"errorCode\":\"LIMIT\","
            + "\"reason\":\"amount over limit\"}");
  }

  @Test
  void anEventReachesTheHandlerAndARetryKeepsItsRoutingKey() throws Exception {
    ServiceModel model = sms("sms", "payment");
    ServiceTopology t = broker.declare(model);
    String ownEvents = broker.probe(t.eventExchange(), "#");
    String otherSubscriber = broker.probe("payment.event.topic.ex", "*.pay.failed");
    List<Event> seen = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .subscription("order_pay_failed_notify", event -> {
          seen.add(event);
          if (event.retries() == 0) {
            throw new IllegalStateException("sms gateway down");
          }
        })
        .build()) {
      worker.start();
      publishPayFailed("payment", "e-1");
      org.awaitility.Awaitility.await().atMost(TestBroker.WAIT).until(() -> seen.size() == 2 && worker.inFlight() == 0);
    }
    // The producer's baton-retries=2 is not ours: this subscription starts at 0.
    assertThat(seen).extracting(Event::retries).containsExactly(0, 1);
    for (Event e : seen) {
      assertThat(e.routingKey()).isEqualTo("order.pay.failed");
      assertThat(e.exchange()).isEqualTo("payment.event.topic.ex");
      assertThat(e.result()).contains(EventResult.FAILED);
      assertThat(e.messageId()).isEqualTo("e-1");
      assertThat(e.bodyAs(Failure.class)).isEqualTo(new Failure("LIMIT", "amount over limit"));
    }
    // The tier returned it straight to the subscription queue, not through the source exchange.
    assertThat(broker.count(otherSubscriber)).isEqualTo(1);
    assertThat(broker.count(ownEvents)).isZero();
    assertThat(broker.count("q.sms.order_pay_failed_notify")).isZero();
    assertThat(broker.count("q.dlx.sms.order_pay_failed_notify")).isZero();
  }

  @Test
  void anEventThatKeepsFailingIsParkedWithItsOrigin() throws Exception {
    ServiceModel model = sms("push", "checkout");
    ServiceTopology t = broker.declare(model);
    String ownEvents = broker.probe(t.eventExchange(), "#");
    List<Long> seen = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .subscription("order_pay_failed_notify", event -> {
          seen.add(System.nanoTime());
          throw new IllegalStateException("push service down");
        })
        .build()) {
      worker.start();
      publishPayFailed("checkout", "e-2");

      GetResponse parked = broker.take("q.dlx.push.order_pay_failed_notify");
      assertThat(parked.getProps().getMessageId()).isEqualTo("e-2");
      assertThat(header(parked, "x-exception-message")).isEqualTo("push service down");
      assertThat(header(parked, "x-exception-type")).isEqualTo("java.lang.IllegalStateException");
      assertThat(header(parked, "x-original-routing-key")).isEqualTo("order.pay.failed");
      assertThat(header(parked, "x-original-exchange")).isEqualTo("checkout.event.topic.ex");
      assertThat(header(parked, "baton-retries")).isEqualTo("2");
    }
    assertThat(seen).hasSize(3);
    assertThat(Duration.ofNanos(seen.get(1) - seen.get(0))).isGreaterThanOrEqualTo(Duration.ofMillis(195));
    assertThat(Duration.ofNanos(seen.get(2) - seen.get(1))).isGreaterThanOrEqualTo(Duration.ofMillis(295));
    assertThat(broker.count(ownEvents)).isZero();
    assertThat(broker.count("q.push.order_pay_failed_notify")).isZero();
  }

  @Test
  void aDuplicateEventIsHandledOnce() throws Exception {
    ServiceModel model = sms("mail", "shop");
    broker.declare(model);
    List<String> seen = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .subscription("order_pay_failed_notify", event -> seen.add(event.messageId()))
        .build()) {
      worker.start();
      publishPayFailed("shop", "e-3");
      publishPayFailed("shop", "e-3");
      publishPayFailed("shop", "e-4");
      org.awaitility.Awaitility.await().atMost(TestBroker.WAIT)
          .until(() -> seen.contains("e-4") && worker.inFlight() == 0);
    }
    assertThat(seen).containsExactly("e-3", "e-4");
    assertThat(broker.count("q.mail.order_pay_failed_notify")).isZero();
  }
}
