package dev.baton.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class NamesTest {

  @Test
  void namesOfDesignSection3() {
    assertThat(Names.commandExchange("payment")).isEqualTo("payment.command.topic.ex");
    assertThat(Names.eventExchange("payment")).isEqualTo("payment.event.topic.ex");
    assertThat(Names.retryExchange("payment")).isEqualTo("payment.retry.direct.ex");
    assertThat(Names.commandRoutingKey("payment", "pay")).isEqualTo("service.payment.pay");
    assertThat(Names.consumerQueue("payment", "pay")).isEqualTo("q.payment.pay");
    assertThat(Names.retryQueue("payment", "pay", BatonDuration.parse("30s"))).isEqualTo("q.retry.payment.pay.30s");
    assertThat(Names.retryQueue("payment", "pay", BatonDuration.parse("120s"))).isEqualTo("q.retry.payment.pay.2m");
    assertThat(Names.deadLetterQueue("payment", "pay")).isEqualTo("q.dlx.payment.pay");
    assertThat(Names.consumerQueue("sms", "order_pay_failed_notify")).isEqualTo("q.sms.order_pay_failed_notify");
    assertThat(Names.eventRoutingKey("order", "pay", EventResult.FAILED)).isEqualTo("order.pay.failed");
    assertThat(Names.orchestratorQueue("order-fulfilment")).isEqualTo("q.orchestrator.order-fulfilment");
  }

  @ParameterizedTest
  @ValueSource(strings = {"payment", "a", "order_pay_failed_notify", "svc-2", "0x"})
  void acceptsTokens(String name) {
    assertThat(Names.isValidToken(name)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "pay.ment", "Payment", "-pay", "pay-", "pay ment", "pay*", "pay#"})
  void rejectsDotsUppercaseAndWildcards(String name) {
    assertThat(Names.isValidToken(name)).isFalse();
  }

  @ParameterizedTest(name = "{0} reads {1}: {2}")
  @CsvSource({
    "payment, q.payment.pay,                true",
    "payment, q.payment.order_failed,       true",
    "payment, q.payments.pay,               false",
    "payment, q.retry.payment.pay.30s,      false",
    "payment, q.dlx.payment.pay,            false",
    "payment, q.inventory.reserve,          false",
    "payment, q.orchestrator.order,         false",
  })
  void workerReadsOnlyItsOwnConsumerQueues(String service, String queue, boolean allowed) {
    assertThat(Pattern.compile(Names.consumerQueuesRegex(service)).matcher(queue).matches()).isEqualTo(allowed);
  }

  @ParameterizedTest(name = "{0} owns tier/parking {1}: {2}/{3}")
  @CsvSource({
    "payment, q.retry.payment.pay.30s,      true,  false",
    "payment, q.retry.payment.pay.1500ms,   true,  false",
    "payment, q.retry.payments.pay.30s,     false, false",
    "payment, q.retry.payment.pay,          false, false",
    "payment, q.dlx.payment.pay,            false, true",
    "payment, q.dlx.payment.pay.x,          false, false",
    "payment, q.dlx.orchestrator.order,     false, false",
    "payment, q.payment.pay,                false, false",
  })
  void tierAndParkingRegexesMatchOnlyThatService(String service, String queue, boolean tier, boolean parking) {
    assertThat(Pattern.compile(Names.retryQueuesRegex(service)).matcher(queue).matches()).isEqualTo(tier);
    assertThat(Pattern.compile(Names.deadLetterQueuesRegex(service)).matcher(queue).matches()).isEqualTo(parking);
  }

  @ParameterizedTest(name = "{0} writes {1}: {2}")
  @CsvSource({
    "payment, payment.event.topic.ex,    true",
    "payment, payment.retry.direct.ex,   true",
    "payment, payment.command.topic.ex,  false",
    "payment, inventory.event.topic.ex,  false",
    "payment, paymentXevent.topic.ex,    false",
    "payment, amq.default,               false",
    "payment, baton.instance.topic.ex,   false",
    "baton,   baton.instance.topic.ex,   false",
  })
  void workerWritesOnlyItsEventAndRetryExchanges(String service, String exchange, boolean allowed) {
    assertThat(Pattern.compile(Names.workerWritableExchangesRegex(service)).matcher(exchange).matches())
        .isEqualTo(allowed);
  }

  @Test
  void anInstanceOutcomeIsPublishedToOneExchangeKeyedByNamespaceWorkflowAndOutcome() {
    assertThat(Names.instanceOutcomeExchange()).isEqualTo("baton.instance.topic.ex");
    assertThat(Names.instanceOutcomeRoutingKey("default", "order-fulfilment", InstanceOutcome.SUCCEEDED))
        .isEqualTo("default.order-fulfilment.succeeded");
    assertThat(Names.instanceOutcomeRoutingKey("shop", "order-fulfilment", InstanceOutcome.FAILED))
        .isEqualTo("shop.order-fulfilment.failed");
    assertThat(Names.instanceOutcomeRoutingKey("shop", "refund", InstanceOutcome.COMPENSATED))
        .isEqualTo("shop.refund.compensated");
    assertThat(Names.instanceOutcomeRoutingKey("shop", "refund", InstanceOutcome.CANCELLED))
        .isEqualTo("shop.refund.cancelled");
    assertThat(Names.instanceOutcomesPattern("shop", "refund")).isEqualTo("shop.refund.*");
  }

  @ParameterizedTest(name = "{0} ends with {1}")
  @CsvSource({
    "shop.order-fulfilment.succeeded,   SUCCEEDED",
    "shop.order-fulfilment.failed,      FAILED",
    "shop.order-fulfilment.compensated, COMPENSATED",
    "shop.order-fulfilment.cancelled,   CANCELLED",
    "shop.order.v2.failed,              FAILED",
  })
  void theOutcomeIsTheLastWordOfTheKey(String key, InstanceOutcome outcome) {
    assertThat(InstanceOutcome.fromRoutingKey(key)).contains(outcome);
  }

  @ParameterizedTest(name = "orchestrator writes {0}: {1}")
  @CsvSource({
    "payment.command.topic.ex, true",
    "amq.default,              true",
    "baton.instance.topic.ex,  true",
    "payment.event.topic.ex,   false",
    "payment.retry.direct.ex,  false",
    "batonXinstance.topic.ex,  false",
  })
  void orchestratorWritesCommandExchanges(String exchange, boolean allowed) {
    assertThat(Pattern.compile(Names.orchestratorWritableRegex()).matcher(exchange).matches()).isEqualTo(allowed);
  }
}
