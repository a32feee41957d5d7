package dev.baton.operator.it;

import static dev.baton.operator.it.BrokerState.binding;
import static dev.baton.operator.it.Crs.retryPolicy;
import static dev.baton.operator.it.Crs.step;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.Crs.workflow;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.AccessSpec;
import dev.baton.api.v1alpha1.SubscriptionSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.operator.model.Tenancy;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Tenancy is closed by default (docs/design.md#tenancy): a namespace owns the services its WorkerServices provide; a
 * Workflow commands, and a WorkerService subscribes to, another namespace's service only when that service's
 * WorkerService grants it in spec.access. What is not granted is Forbidden with nothing declared; a grant withdrawn
 * takes away on the broker what it allowed. With claim rules (BATON_TENANCY) a namespace also claims only the service
 * names it is allowed.
 */
class TenancyIT {

  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("tenancy", s -> s.toBuilder().tenancy(Tenancy.parse(
        "payments=payment;shop=cart;team-a=stock,billing,payroll,ledger,pricing;team-b=audit,notify,quotes;team-c=ledger")).build());
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void a_namespace_may_not_claim_another_teams_name_nor_block_it() {
    WorkerService squatter = workerService("shop", "payment", "pay");
    f.create(squatter);
    assertThat(f.awaitReady(WorkerService.class, "shop", "payment", false, "Forbidden").getMessage())
        .contains("namespace 'shop' may not claim service 'payment'");
    assertThat(broker.queues()).doesNotContainKey("q.payment.pay");

    // The team the name is for gets it, although the squatter is older: a forbidden claim holds nothing.
    f.create(workerService("payments", "payment", "pay"));
    f.awaitReady(WorkerService.class, "payments", "payment", true, "Ready");
    assertThat(broker.queues()).containsKey("q.payment.pay");
  }

  @Test
  void a_second_namespace_claiming_a_taken_name_is_refused_and_gets_nothing_declared() {
    f.create(workerService("team-a", "ledger", "book"));
    f.awaitReady(WorkerService.class, "team-a", "ledger", true, "Ready");

    f.create(workerService("team-c", "ledger", "post"));

    assertThat(f.awaitReady(WorkerService.class, "team-c", "ledger", false, "Conflict").getMessage())
        .contains("service 'ledger' is already provided by WorkerService team-a/ledger");
    assertThat(broker.queues()).containsKey("q.ledger.book").doesNotContainKey("q.ledger.post");
    assertThat(f.condition(WorkerService.class, "team-a", "ledger", "Ready").orElseThrow().getStatus())
        .isEqualTo("True");
  }

  @Test
  void a_subscription_to_another_namespace_waits_for_its_grant_and_loses_its_queues_when_the_grant_is_withdrawn() {
    f.create(workerService("team-a", "stock", "reserve"));
    f.create(retryPolicy("team-b", "gentle", 3, "1s"));
    f.create(workerService("team-b", "audit", subscribeTo("stock_low", "stock", "*.reserve.failed", "gentle"),
        "record"));

    assertThat(f.awaitReady(WorkerService.class, "team-b", "audit", false, "Forbidden").getMessage()).contains(
        "subscription 'stock_low': namespace team-b may not subscribe to events of service stock provided in team-a: "
            + "its WorkerService stock lists eventsTo []; ask its owners to add team-b to spec.access.eventsTo");
    assertThat(broker.queues()).as("its command works, nothing of the subscription is declared")
        .containsKey("q.audit.record").doesNotContainKeys("q.audit.stock_low", "q.dlx.audit.stock_low");

    grant("team-a", "stock", new AccessSpec(List.of(), List.of("team-b")));

    f.awaitReady(WorkerService.class, "team-b", "audit", true, "Ready");
    assertThat(broker.queues()).containsKeys("q.audit.stock_low", "q.retry.audit.stock_low.1s", "q.dlx.audit.stock_low");
    assertThat(broker.bindings()).contains(binding("stock.event.topic.ex", "q.audit.stock_low", "*.reserve.failed"));
    Amqp.publish(f.vhost, "stock.event.topic.ex", "item.reserve.failed");
    await().atMost(WITHIN).until(() -> Amqp.ready(f.vhost, "q.audit.stock_low") == 1);

    grant("team-a", "stock", new AccessSpec(List.of(), List.of("ops")));

    assertThat(f.awaitReady(WorkerService.class, "team-b", "audit", false, "Forbidden").getMessage())
        .contains("lists eventsTo [ops]; ask its owners to add team-b to spec.access.eventsTo");
    await().atMost(WITHIN).untilAsserted(() -> {
      assertThat(broker.queues()).as("withdrawn, the event already queued included")
          .doesNotContainKeys("q.audit.stock_low", "q.retry.audit.stock_low.1s", "q.dlx.audit.stock_low");
      assertThat(broker.bindings()).noneMatch(b -> b.startsWith("stock.event.topic.ex -> q.audit."));
    });
    assertThat(broker.queues()).as("the commands keep working").containsKey("q.audit.record");
    assertThat(broker.bindings()).contains(binding("audit.command.topic.ex", "q.audit.record", "service.audit.record"));
  }

  @Test
  void a_subscriber_whose_own_spec_is_broken_loses_a_withdrawn_binding_all_the_same() {
    f.create(workerService("team-a", "pricing", spec -> spec.setAccess(new AccessSpec(List.of(), List.of("team-b"))),
        "price"));
    f.create(workerService("team-b", "quotes", subscribeTo("price_changed", "pricing", "*.price.success"), "quote"));
    f.awaitReady(WorkerService.class, "team-b", "quotes", true, "Ready");
    assertThat(broker.bindings())
        .contains(binding("pricing.event.topic.ex", "q.quotes.price_changed", "*.price.success"));

    f.edit(WorkerService.class, "team-b", "quotes", ws -> {
      ws.getSpec().getSubscriptions().get(0).setRetryPolicy("no-such-policy");
      return ws;
    });
    f.awaitReady(WorkerService.class, "team-b", "quotes", false, "MissingRetryPolicy");
    grant("team-a", "pricing", null);

    await().atMost(WITHIN).untilAsserted(() -> assertThat(broker.bindings())
        .doesNotContain(binding("pricing.event.topic.ex", "q.quotes.price_changed", "*.price.success")));
  }

  @Test
  void a_subscription_to_a_service_nobody_provides_declares_nothing_until_a_provider_grants_it() {
    f.create(workerService("team-b", "notify", subscribeTo("invoice_due", "billing", "*.invoice.success"), "send"));

    assertThat(f.awaitReady(WorkerService.class, "team-b", "notify", false, "Forbidden").getMessage()).contains(
        "namespace team-b may not subscribe to events of service billing: no WorkerService provides it yet");
    assertThat(broker.exchanges()).as("not even the source exchange").doesNotContainKey("billing.event.topic.ex");
    assertThat(broker.queues()).containsKey("q.notify.send").doesNotContainKey("q.notify.invoice_due");

    f.create(workerService("team-a", "billing", spec -> spec.setAccess(new AccessSpec(List.of(), List.of("*"))),
        "invoice"));

    f.awaitReady(WorkerService.class, "team-b", "notify", true, "Ready");
    assertThat(broker.bindings())
        .contains(binding("billing.event.topic.ex", "q.notify.invoice_due", "*.invoice.success"));
  }

  @Test
  void a_workflow_commands_another_namespaces_service_only_while_it_lists_the_namespace_in_commandsFrom() {
    f.create(workerService("team-a", "payroll", "pay", "refund"));
    f.create(workflow("team-b", "salaries", "employee", step("pay", "payroll", "pay", "refund")));

    assertThat(f.awaitReady(Workflow.class, "team-b", "salaries", false, "Forbidden").getMessage()).contains(
        "namespace team-b may not send commands to service payroll provided in team-a: its WorkerService payroll "
            + "lists commandsFrom []; ask its owners to add team-b to spec.access.commandsFrom");
    assertThat(broker.queues()).as("nothing declared").doesNotContainKey("q.orchestrator.salaries");

    grant("team-a", "payroll", new AccessSpec(List.of("team-b"), List.of()));

    f.awaitReady(Workflow.class, "team-b", "salaries", true, "Ready");
    assertThat(broker.bindings()).contains(
        binding("payroll.event.topic.ex", "q.orchestrator.salaries", "employee.pay.success"),
        binding("payroll.event.topic.ex", "q.orchestrator.salaries", "employee.refund.error"));

    grant("team-a", "payroll", null);

    f.awaitReady(Workflow.class, "team-b", "salaries", false, "Forbidden");
    await().atMost(WITHIN).untilAsserted(() -> assertThat(broker.bindings())
        .noneMatch(b -> b.startsWith("payroll.event.topic.ex -> q.orchestrator.salaries")));
    assertThat(broker.queues()).as("its own queue stays, with what running instances were sent")
        .containsKey("q.orchestrator.salaries");
  }

  @Test
  void the_opening_flag_lets_every_namespace_use_every_service_as_before() {
    try (OperatorFixture open = OperatorFixture.start("tenancy-open", s -> s.toBuilder().tenancy(Tenancy.OPEN).build())) {
      BrokerState openBroker = new BrokerState(open.management, open.vhost.name());
      open.create(workerService("team-b", "alerts", subscribeTo("stock_low", "warehouse", "*.reserve.failed"), "page"));
      open.awaitReady(WorkerService.class, "team-b", "alerts", true, "Ready");
      assertThat(openBroker.exchanges()).as("a subscription ahead of its provider binds at once")
          .containsKey("warehouse.event.topic.ex");

      open.create(workerService("team-a", "warehouse", "reserve"));
      open.create(workflow("team-b", "restock", "item", step("reserve", "warehouse", "reserve", null)));
      open.awaitReady(Workflow.class, "team-b", "restock", true, "Ready");
      assertThat(openBroker.bindings())
          .contains(binding("warehouse.event.topic.ex", "q.orchestrator.restock", "item.reserve.success"));
    }
  }

  /** The provider's owners set its spec.access (null: none). */
  private static void grant(String namespace, String name, AccessSpec access) {
    f.edit(WorkerService.class, namespace, name, ws -> {
      ws.getSpec().setAccess(access);
      return ws;
    });
  }

  private static Consumer<WorkerServiceSpec> subscribeTo(String name, String service, String pattern) {
    return subscribeTo(name, service, pattern, null);
  }

  private static Consumer<WorkerServiceSpec> subscribeTo(String name, String service, String pattern,
      String retryPolicy) {
    return spec -> {
      SubscriptionSpec s = new SubscriptionSpec();
      s.setName(name);
      s.setService(service);
      s.setPattern(pattern);
      s.setRetryPolicy(retryPolicy);
      spec.getSubscriptions().add(s);
    };
  }
}
