package dev.baton.operator.it;

import static dev.baton.operator.it.BrokerState.binding;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConsumerStatus;
import dev.baton.api.v1alpha1.Outcome;
import dev.baton.api.v1alpha1.SubscriptionSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Workflow outcomes as events a worker subscribes to (docs/design.md#broker-names): the operator declares the vhost's
 * outcome exchange baton.instance.topic.ex when it starts (and again should it go), and binds a subscription to a
 * Workflow's outcomes with keys that begin with the subscriber's own namespace. A subscription naming another
 * namespace's Workflow is Forbidden, with nothing declared for it (docs/design.md#tenancy).
 */
class OutcomeSubscriptionsIT {

  static final String OUTCOMES = "baton.instance.topic.ex";

  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("outcomes");
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  static Consumer<WorkerServiceSpec> outcomesOf(String name, String workflow, Outcome... outcomes) {
    return spec -> {
      SubscriptionSpec s = new SubscriptionSpec();
      s.setName(name);
      s.setWorkflow(workflow);
      s.setOutcomes(List.of(outcomes));
      spec.getSubscriptions().add(s);
    };
  }

  @Test
  void the_operator_declares_the_outcome_exchange_when_it_starts() {
    await().atMost(WITHIN).untilAsserted(() -> assertThat(broker.exchanges()).containsEntry(OUTCOMES, "topic"));
  }

  @Test
  void a_subscription_to_failed_outcomes_binds_its_queue_to_the_outcome_exchange_for_its_own_namespace() {
    f.create(workerService("shop", "alerts",
        outcomesOf("fulfilment_failed", "order-fulfilment", Outcome.FAILED, Outcome.COMPENSATED), "page"));

    f.awaitReady(WorkerService.class, "shop", "alerts", true, "Ready");
    assertThat(broker.queues()).containsKeys("q.alerts.fulfilment_failed", "q.dlx.alerts.fulfilment_failed");
    assertThat(broker.bindings()).contains(
        binding(OUTCOMES, "q.alerts.fulfilment_failed", "shop.order-fulfilment.failed"),
        binding(OUTCOMES, "q.alerts.fulfilment_failed", "shop.order-fulfilment.compensated"));
    assertThat(f.get(WorkerService.class, "shop", "alerts").getStatus().getSubscriptions())
        .extracting(ConsumerStatus::getRoutingKey)
        .containsExactly("shop.order-fulfilment.failed,shop.order-fulfilment.compensated");

    // What the runtime publishes when an instance ends: only this namespace's Workflow's, and only those outcomes.
    Amqp.publish(f.vhost, OUTCOMES, "shop.order-fulfilment.failed");
    Amqp.publish(f.vhost, OUTCOMES, "shop.order-fulfilment.succeeded");
    Amqp.publish(f.vhost, OUTCOMES, "ops.order-fulfilment.failed");
    await().atMost(WITHIN).until(() -> Amqp.ready(f.vhost, "q.alerts.fulfilment_failed") == 1);
  }

  @Test
  void a_subscription_to_another_namespaces_workflow_is_forbidden_with_nothing_declared() {
    f.create(workerService("ops", "spy", outcomesOf("their_failures", "shop/order-fulfilment", Outcome.FAILED),
        "watch"));

    assertThat(f.awaitReady(WorkerService.class, "ops", "spy", false, "Forbidden").getMessage()).contains(
        "subscription 'their_failures': namespace ops may not receive the outcomes of Workflow shop/order-fulfilment");
    assertThat(broker.queues()).as("its command works, nothing of the subscription is declared")
        .containsKey("q.spy.watch").doesNotContainKeys("q.spy.their_failures", "q.dlx.spy.their_failures");
    assertThat(broker.bindings()).noneMatch(b -> b.startsWith(OUTCOMES + " -> q.spy."));
  }

  @Test
  void a_deleted_outcome_exchange_comes_back_with_its_subscribers_bindings() {
    f.create(workerService("shop", "ledger", outcomesOf("settled", "order-fulfilment", Outcome.SUCCEEDED), "book"));
    f.awaitReady(WorkerService.class, "shop", "ledger", true, "Ready");

    f.management.deleteExchange(f.vhost.name(), OUTCOMES);

    await().atMost(WITHIN).untilAsserted(() -> {
      assertThat(broker.exchanges()).containsEntry(OUTCOMES, "topic");
      assertThat(broker.bindings()).contains(binding(OUTCOMES, "q.ledger.settled", "shop.order-fulfilment.succeeded"));
    });
  }
}
