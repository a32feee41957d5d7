package dev.baton.deadletters;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where a dead letter goes back to, and with which headers (no broker needed). */
class ReplayTargetTest {

  private static final DeadLetterQueue PAY = DeadLetterQueue.parse("q.dlx.payment.pay").orElseThrow();

  @Test
  void aCommandGoesBackToItsOriginalExchangeAndRoutingKey() {
    ReplayTarget t = ReplayTarget.of(PAY, Map.of("x-original-exchange", "payment.command.topic.ex",
        "x-original-routing-key", "service.payment.pay"));
    assertThat(t).isEqualTo(new ReplayTarget("payment.command.topic.ex", "service.payment.pay", false));
  }

  @Test
  void withoutOriginHeadersTheCommandExchangeAndKeyComeFromTheQueueName() {
    assertThat(ReplayTarget.of(PAY, Map.of()))
        .isEqualTo(new ReplayTarget("payment.command.topic.ex", "service.payment.pay", false));
  }

  @Test
  void aSubscriptionsEventGoesToItsOwnQueueOnlyThroughTheDefaultExchange() {
    DeadLetterQueue sms = DeadLetterQueue.parse("q.dlx.sms.order_pay_failed_notify").orElseThrow();
    assertThat(ReplayTarget.of(sms, Map.of("x-original-exchange", "payment.event.topic.ex",
        "x-original-routing-key", "order.pay.failed")))
        .isEqualTo(new ReplayTarget("", "q.sms.order_pay_failed_notify", true));
    DeadLetterQueue parked = DeadLetterQueue.parse("q.dlx.orchestrator.order-fulfilment").orElseThrow();
    assertThat(ReplayTarget.of(parked, Map.of("x-original-exchange", "payment.event.topic.ex")).routingKey())
        .isEqualTo("q.orchestrator.order-fulfilment");
  }

  @Test
  void everyHeaderIsKeptButRetriesAreResetAndTheExceptionDropped() {
    Map<String, Object> headers = new HashMap<>(Map.of("baton-instance", "i-1", "baton-step", "charge",
        "baton-retries", 3, "x-exception-type", "java.io.IOException", "x-exception-message", "boom",
        "x-original-routing-key", "service.payment.pay", "traceparent", "00-abc-def-01"));
    AMQP.BasicProperties parked = new AMQP.BasicProperties.Builder().messageId("m-1").correlationId("i-1")
        .contentType("application/json").headers(headers).build();

    AMQP.BasicProperties once = ReplayTarget.replayProperties(parked);
    assertThat(once.getMessageId()).isEqualTo("m-1");
    assertThat(once.getCorrelationId()).isEqualTo("i-1");
    assertThat(once.getDeliveryMode()).isEqualTo(2);
    assertThat(once.getHeaders()).containsEntry("baton-retries", 0).containsEntry("baton-instance", "i-1")
        .containsEntry("baton-step", "charge").containsEntry("traceparent", "00-abc-def-01")
        .containsEntry("x-original-routing-key", "service.payment.pay").containsEntry("x-replay-count", 1)
        .doesNotContainKeys("x-exception-type", "x-exception-message");
    assertThat(ReplayTarget.replayProperties(once).getHeaders()).containsEntry("x-replay-count", 2);
  }

  @Test
  void onlyDeadLetterQueuesCanBeReplayed() {
    assertThat(PAY.service()).isEqualTo("payment");
    assertThat(PAY.consumer()).isEqualTo("pay");
    for (String bad : new String[] {"q.payment.pay", "q.dlx.payment", "q.dlx..pay", "q.dlx.payment."}) {
      assertThat(DeadLetterQueue.parse(bad)).as(bad).isEmpty();
    }
  }
}
