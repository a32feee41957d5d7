package dev.baton.contract.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.baton.contract.EventResult;
import dev.baton.contract.InstanceOutcome;
import dev.baton.contract.RetryStaircase;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class TopologyPlannerTest {

  private static final RetryStaircase STANDARD = RetryStaircase.of(4, List.of("30s", "2m", "10m"));

  private static ServiceModel payment(QueueType type) {
    return new ServiceModel("payment", type,
        List.of(new ServiceModel.Command("pay", STANDARD), new ServiceModel.Command("refund", RetryStaircase.NONE)),
        List.of());
  }

  @Test
  void exchangesOfAService() {
    ServiceTopology t = TopologyPlanner.plan(payment(QueueType.CLASSIC));
    assertThat(t.exchanges()).containsExactly(
        new ExchangeSpec("payment.command.topic.ex", ExchangeSpec.Type.TOPIC),
        new ExchangeSpec("payment.event.topic.ex", ExchangeSpec.Type.TOPIC),
        new ExchangeSpec("payment.retry.direct.ex", ExchangeSpec.Type.DIRECT));
  }

  static Stream<Arguments> queues() {
    return Stream.of(
        // queue, role, arguments
        Arguments.of("q.payment.pay", QueueSpec.Role.CONSUMER, Map.of(
            "x-queue-type", "classic",
            "x-dead-letter-exchange", "payment.retry.direct.ex",
            "x-dead-letter-routing-key", "q.payment.pay")),
        Arguments.of("q.retry.payment.pay.30s", QueueSpec.Role.RETRY_TIER, Map.of(
            "x-queue-type", "classic",
            "x-message-ttl", 30_000L,
            "x-dead-letter-exchange", "payment.command.topic.ex",
            "x-dead-letter-routing-key", "service.payment.pay")),
        Arguments.of("q.retry.payment.pay.2m", QueueSpec.Role.RETRY_TIER, Map.of(
            "x-queue-type", "classic",
            "x-message-ttl", 120_000L,
            "x-dead-letter-exchange", "payment.command.topic.ex",
            "x-dead-letter-routing-key", "service.payment.pay")),
        Arguments.of("q.retry.payment.pay.10m", QueueSpec.Role.RETRY_TIER, Map.of(
            "x-queue-type", "classic",
            "x-message-ttl", 600_000L,
            "x-dead-letter-exchange", "payment.command.topic.ex",
            "x-dead-letter-routing-key", "service.payment.pay")),
        Arguments.of("q.dlx.payment.pay", QueueSpec.Role.DEAD_LETTER, Map.of("x-queue-type", "classic")),
        Arguments.of("q.payment.refund", QueueSpec.Role.CONSUMER, Map.of(
            "x-queue-type", "classic",
            "x-dead-letter-exchange", "payment.retry.direct.ex",
            "x-dead-letter-routing-key", "q.payment.refund")),
        Arguments.of("q.dlx.payment.refund", QueueSpec.Role.DEAD_LETTER, Map.of("x-queue-type", "classic")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queues")
  void queueOfAService(String name, QueueSpec.Role role, Map<String, Object> arguments) {
    ServiceTopology t = TopologyPlanner.plan(payment(QueueType.CLASSIC));
    assertThat(t.queues()).contains(new QueueSpec(name, role, arguments));
  }

  @Test
  void noOtherQueues() {
    ServiceTopology t = TopologyPlanner.plan(payment(QueueType.CLASSIC));
    assertThat(t.queueNames()).containsExactlyInAnyOrderElementsOf(
        queues().map(a -> (String) a.get()[0]).toList());
  }

  @Test
  void bindingsOfAService() {
    ServiceTopology t = TopologyPlanner.plan(payment(QueueType.CLASSIC));
    assertThat(t.bindings()).extracting(BindingSpec::exchange, BindingSpec::queue, BindingSpec::routingKey)
        .containsExactlyInAnyOrder(
            tuple("payment.command.topic.ex", "q.payment.pay", "service.payment.pay"),
            tuple("payment.retry.direct.ex", "q.retry.payment.pay.30s", "q.retry.payment.pay.30s"),
            tuple("payment.retry.direct.ex", "q.retry.payment.pay.2m", "q.retry.payment.pay.2m"),
            tuple("payment.retry.direct.ex", "q.retry.payment.pay.10m", "q.retry.payment.pay.10m"),
            tuple("payment.retry.direct.ex", "q.dlx.payment.pay", "q.dlx.payment.pay"),
            // nack(requeue=false) on q.payment.pay goes to the first tier
            tuple("payment.retry.direct.ex", "q.retry.payment.pay.30s", "q.payment.pay"),
            tuple("payment.command.topic.ex", "q.payment.refund", "service.payment.refund"),
            tuple("payment.retry.direct.ex", "q.dlx.payment.refund", "q.dlx.payment.refund"),
            // no retries: a nack parks the message at once
            tuple("payment.retry.direct.ex", "q.dlx.payment.refund", "q.payment.refund"));
  }

  @Test
  void quorumAppliesToEveryQueue() {
    ServiceTopology t = TopologyPlanner.plan(payment(QueueType.QUORUM));
    assertThat(t.queues()).allSatisfy(q -> assertThat(q.arguments()).containsEntry("x-queue-type", "quorum"));
  }

  /** Quorum queues that dead-letter do so at least once, with an explicit delivery limit; parking queues never drop. */
  @Test
  void quorumQueuesDeadLetterAtLeastOnceWithAnExplicitDeliveryLimit() {
    Map<String, Object> atLeastOnce = Map.of("x-dead-letter-strategy", "at-least-once",
        "x-overflow", "reject-publish", "x-delivery-limit", 50);
    ServiceTopology t = TopologyPlanner.plan(payment(QueueType.QUORUM));
    assertThat(t.queues()).filteredOn(q -> q.role() != QueueSpec.Role.DEAD_LETTER)
        .hasSize(5).allSatisfy(q -> assertThat(q.arguments()).containsAllEntriesOf(atLeastOnce));
    assertThat(t.queues()).filteredOn(q -> q.role() == QueueSpec.Role.DEAD_LETTER)
        .hasSize(2).allSatisfy(q -> assertThat(q.arguments())
            .isEqualTo(Map.of("x-queue-type", "quorum", "x-delivery-limit", 1_000_000)));
    OrchestratorTopology w = TopologyPlanner.plan(new WorkflowModel("order-fulfilment", "order", QueueType.QUORUM,
        List.of(new WorkflowModel.Step("charge", "payment", "pay", "refund"))));
    assertThat(w.queue().arguments()).containsAllEntriesOf(atLeastOnce);
    assertThat(w.deadLetterQueue().arguments()).isEqualTo(Map.of("x-queue-type", "quorum", "x-delivery-limit", 1_000_000));
    // classic queues support neither: unchanged
    assertThat(TopologyPlanner.plan(payment(QueueType.CLASSIC)).queues())
        .allSatisfy(q -> assertThat(q.arguments()).doesNotContainKeys("x-dead-letter-strategy", "x-overflow",
            "x-delivery-limit"));
  }

  @Test
  void workerPermissions() {
    PermissionSpec p = TopologyPlanner.plan(payment(QueueType.CLASSIC)).workerPermissions();
    assertThat(p.configure()).isEqualTo("^$");
    assertThat(p.write()).isEqualTo("^(payment\\.event\\.topic\\.ex|payment\\.retry\\.direct\\.ex)$");
    assertThat(p.read()).isEqualTo("^q\\.payment\\.[^.]+$");
  }

  @Test
  void consumerTopologyTellsAWorkerWhereEverythingIs() {
    ConsumerTopology pay = TopologyPlanner.plan(payment(QueueType.CLASSIC)).consumers().get(0);
    assertThat(pay.kind()).isEqualTo(ConsumerTopology.Kind.COMMAND);
    assertThat(pay.queue()).isEqualTo("q.payment.pay");
    assertThat(pay.routingKey()).isEqualTo("service.payment.pay");
    assertThat(pay.retryQueues())
        .containsExactly("q.retry.payment.pay.30s", "q.retry.payment.pay.2m", "q.retry.payment.pay.10m");
    assertThat(pay.deadLetterQueue()).isEqualTo("q.dlx.payment.pay");
  }

  @Test
  void subscriptionBindsToTheSourceAndRetriesStraightBackToItsQueue() {
    ServiceModel sms = new ServiceModel("sms", QueueType.CLASSIC, List.of(), List.of(
        new ServiceModel.Subscription("order_pay_failed_notify", "payment", "*.pay.failed",
            RetryStaircase.of(2, List.of("5s")))));
    ServiceTopology t = TopologyPlanner.plan(sms);
    assertThat(t.bindings()).extracting(BindingSpec::exchange, BindingSpec::queue, BindingSpec::routingKey)
        .contains(
            tuple("payment.event.topic.ex", "q.sms.order_pay_failed_notify", "*.pay.failed"),
            tuple("sms.retry.direct.ex", "q.retry.sms.order_pay_failed_notify.5s", "q.sms.order_pay_failed_notify"));
    assertThat(t.queues()).contains(new QueueSpec("q.retry.sms.order_pay_failed_notify.5s", QueueSpec.Role.RETRY_TIER,
        Map.of("x-queue-type", "classic", "x-message-ttl", 5_000L,
            "x-dead-letter-exchange", "", "x-dead-letter-routing-key", "q.sms.order_pay_failed_notify")));
    assertThat(t.queueNames()).contains("q.dlx.sms.order_pay_failed_notify");
  }

  @Test
  void aSubscriptionToOutcomesBindsTheOutcomeExchangeOncePerOutcomeOfItsNamespacesWorkflow() {
    ServiceModel alerts = new ServiceModel("alerts", QueueType.CLASSIC, List.of(), List.of(
        new ServiceModel.Subscription("fulfilment_failed", new ServiceModel.WorkflowOutcomes("shop",
            "order-fulfilment", List.of(InstanceOutcome.COMPENSATED, InstanceOutcome.FAILED)), RetryStaircase.NONE)));
    ServiceTopology t = TopologyPlanner.plan(alerts);
    assertThat(t.bindings()).extracting(BindingSpec::exchange, BindingSpec::queue, BindingSpec::routingKey)
        .contains(
            tuple("baton.instance.topic.ex", "q.alerts.fulfilment_failed", "shop.order-fulfilment.failed"),
            tuple("baton.instance.topic.ex", "q.alerts.fulfilment_failed", "shop.order-fulfilment.compensated"),
            tuple("alerts.retry.direct.ex", "q.dlx.alerts.fulfilment_failed", "q.alerts.fulfilment_failed"));
    assertThat(t.consumers()).singleElement().satisfies(c -> {
      assertThat(c.kind()).isEqualTo(ConsumerTopology.Kind.SUBSCRIPTION);
      assertThat(c.routingKey()).isEqualTo("shop.order-fulfilment.failed,shop.order-fulfilment.compensated");
    });
    assertThat(t.exchangeNames()).as("the outcome exchange is the vhost's, not the service's")
        .doesNotContain("baton.instance.topic.ex");
  }

  @Test
  void everyOutcomeOfAWorkflowIsOneBinding() {
    ServiceModel.WorkflowOutcomes all = new ServiceModel.WorkflowOutcomes("shop", "order-fulfilment",
        List.of(InstanceOutcome.values()));
    assertThat(all.bindingKeys()).containsExactly("shop.order-fulfilment.*");
  }

  @Test
  void orchestratorQueueBindsEveryResultOfEveryStepAndCompensation() {
    WorkflowModel w = new WorkflowModel("order-fulfilment", "order", QueueType.CLASSIC, List.of(
        new WorkflowModel.Step("reserve-stock", "inventory", "reserve", "release"),
        new WorkflowModel.Step("charge", "payment", "pay", "refund"),
        new WorkflowModel.Step("ship", "shipping", "ship", null)));
    OrchestratorTopology t = TopologyPlanner.plan(w);
    assertThat(t.queue().name()).isEqualTo("q.orchestrator.order-fulfilment");
    assertThat(t.queue().arguments()).containsEntry("x-queue-type", "classic")
        .containsEntry("x-dead-letter-exchange", "")
        .containsEntry("x-dead-letter-routing-key", "q.dlx.orchestrator.order-fulfilment");
    assertThat(t.deadLetterQueue().name()).isEqualTo("q.dlx.orchestrator.order-fulfilment");
    assertThat(t.bindings()).extracting(BindingSpec::exchange, BindingSpec::routingKey).containsExactly(
        tuple("inventory.event.topic.ex", "order.reserve.success"),
        tuple("inventory.event.topic.ex", "order.reserve.failed"),
        tuple("inventory.event.topic.ex", "order.reserve.error"),
        tuple("inventory.event.topic.ex", "order.reserve.expired"),
        tuple("inventory.event.topic.ex", "order.release.success"),
        tuple("inventory.event.topic.ex", "order.release.failed"),
        tuple("inventory.event.topic.ex", "order.release.error"),
        tuple("inventory.event.topic.ex", "order.release.expired"),
        tuple("payment.event.topic.ex", "order.pay.success"),
        tuple("payment.event.topic.ex", "order.pay.failed"),
        tuple("payment.event.topic.ex", "order.pay.error"),
        tuple("payment.event.topic.ex", "order.pay.expired"),
        tuple("payment.event.topic.ex", "order.refund.success"),
        tuple("payment.event.topic.ex", "order.refund.failed"),
        tuple("payment.event.topic.ex", "order.refund.error"),
        tuple("payment.event.topic.ex", "order.refund.expired"),
        tuple("shipping.event.topic.ex", "order.ship.success"),
        tuple("shipping.event.topic.ex", "order.ship.failed"),
        tuple("shipping.event.topic.ex", "order.ship.error"),
        tuple("shipping.event.topic.ex", "order.ship.expired"));
  }

  @Test
  void twoStepsOnTheSameActionBindOnce() {
    WorkflowModel w = new WorkflowModel("w", "doc", QueueType.CLASSIC, List.of(
        new WorkflowModel.Step("a", "svc", "check", null),
        new WorkflowModel.Step("b", "svc", "check", null)));
    assertThat(TopologyPlanner.plan(w).bindings()).hasSize(EventResult.values().length);
  }
}
