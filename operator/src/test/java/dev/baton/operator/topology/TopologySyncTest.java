package dev.baton.operator.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.operator.broker.BrokerException;
import dev.baton.operator.broker.BrokerQueue;
import dev.baton.operator.broker.FakeBrokerClient;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TopologySyncTest {

  final FakeBrokerClient broker = new FakeBrokerClient();
  final ServiceBrokerObjects objects = new ServiceBrokerObjects(new TopologySync(broker.snapshot()));

  static ServiceTopology payment(QueueType type, String... payDelays) {
    RetryStaircase pay = payDelays.length == 0 ? RetryStaircase.NONE : RetryStaircase.of(payDelays.length + 1, List.of(payDelays));
    return TopologyPlanner.plan(new ServiceModel("payment", type, List.of(
        new ServiceModel.Command("pay", pay), new ServiceModel.Command("refund", RetryStaircase.NONE)), List.of()));
  }

  /**
   * Quorum queues declared before Baton set the at-least-once arguments lack them; arguments are immutable, so they
   * are used as they are, not reported as ImmutableQueueArguments. A different value still is.
   */
  @Test
  void quorumQueuesWithoutTheArgumentsAddedLaterAreUsedAsTheyAre() {
    ServiceTopology plan = payment(QueueType.QUORUM, "1s");
    objects.declare(plan);
    broker.queues.replaceAll((name, q) -> new BrokerQueue(name, q.arguments().entrySet().stream()
        .filter(e -> !e.getKey().equals("x-dead-letter-strategy") && !e.getKey().equals("x-overflow")
            && !e.getKey().equals("x-delivery-limit"))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)), 0, 0));

    assertThat(objects.declare(plan).mismatches()).isEmpty();

    broker.queues.computeIfPresent("q.payment.pay", (name, q) -> {
      Map<String, Object> args = new java.util.HashMap<>(q.arguments());
      args.put("x-delivery-limit", 20);
      return new BrokerQueue(name, args, 0, 0);
    });
    assertThat(objects.declare(plan).mismatches()).extracting(ImmutableMismatch::name, ImmutableMismatch::property)
        .containsExactly(tuple("q.payment.pay", "x-delivery-limit"));
  }

  /** A withdrawn grant (docs/design.md#tenancy): one subscription's queues go, messages and all; the rest stays. */
  @Test
  void aWithdrawnSubscriptionLosesItsQueuesAndTheServiceKeepsTheRest() {
    RetryStaircase twice = RetryStaircase.of(2, List.of("1s"));
    ServiceTopology plan = TopologyPlanner.plan(new ServiceModel("audit", QueueType.CLASSIC,
        List.of(new ServiceModel.Command("record", twice)), List.of(
            new ServiceModel.Subscription("stock_low", "stock", "*.reserve.failed", twice),
            new ServiceModel.Subscription("paid", "payment", "*.pay.success", RetryStaircase.NONE))));
    objects.declare(plan);
    broker.fill("q.audit.stock_low", 3);
    broker.fill("q.dlx.audit.stock_low", 1);

    RemovalReport removed = objects.withdraw("audit", "stock_low");

    assertThat(removed.deleted()).containsExactlyInAnyOrder(
        "q.audit.stock_low", "q.retry.audit.stock_low.1s", "q.dlx.audit.stock_low");
    assertThat(broker.queues.keySet()).containsExactlyInAnyOrder("q.audit.record", "q.retry.audit.record.1s",
        "q.dlx.audit.record", "q.audit.paid", "q.dlx.audit.paid");
    assertThat(broker.exchanges.keySet()).as("the service's exchanges stay").containsAll(plan.exchangeNames());
    assertThat(broker.bindings).noneMatch(b -> b.queue().contains("stock_low"));
  }

  @Test
  void unbindingFromRefusedExchangesTouchesNoOtherBinding() {
    ServiceTopology plan = TopologyPlanner.plan(new ServiceModel("audit", QueueType.CLASSIC,
        List.of(new ServiceModel.Command("record", RetryStaircase.NONE)), List.of(
            new ServiceModel.Subscription("stock_low", "stock", "*.reserve.failed", RetryStaircase.NONE),
            new ServiceModel.Subscription("paid", "payment", "*.pay.success", RetryStaircase.NONE))));
    objects.declare(plan);

    List<String> unbound = objects.unbindFrom("audit", "stock.event.topic.ex"::equals);

    assertThat(unbound).containsExactly("unbound q.audit.stock_low from stock.event.topic.ex ('*.reserve.failed')");
    assertThat(broker.bindings).containsExactlyInAnyOrderElementsOf(plan.bindings().stream()
        .filter(b -> !b.exchange().equals("stock.event.topic.ex")).toList());
    assertThat(broker.queues).as("the queue stays; the plan decides about it").containsKey("q.audit.stock_low");
  }

  @Test
  void declaresThePlanOnAnEmptyBrokerAndThenChangesNothing() {
    ServiceTopology plan = payment(QueueType.CLASSIC, "1s", "5s");
    SyncReport first = objects.declare(plan);

    assertThat(broker.exchanges.keySet()).containsExactlyInAnyOrderElementsOf(plan.exchangeNames());
    assertThat(broker.queues.keySet()).containsExactlyInAnyOrderElementsOf(plan.queueNames());
    assertThat(broker.bindings).containsExactlyInAnyOrderElementsOf(plan.bindings());
    assertThat(first.actions()).isNotEmpty();
    assertThat(first.queues().keySet()).containsExactlyInAnyOrderElementsOf(plan.queueNames());

    broker.writes.clear();
    SyncReport second = objects.declare(plan);
    assertThat(broker.writes).as("a resync of an unchanged broker writes nothing").isEmpty();
    assertThat(second.actions()).isEmpty();
    assertThat(second.mismatches()).isEmpty();
  }

  @Test
  void aPassOverAResourceWhoseObjectsAreInPlaceSendsNoRequestWhileTheListingIsFresh() {
    ServiceBrokerObjects shared = new ServiceBrokerObjects(new TopologySync(
        new dev.baton.operator.broker.BrokerSnapshot(broker, java.time.Duration.ofMinutes(1), java.time.Clock.systemUTC())));
    shared.declare(payment(QueueType.CLASSIC, "1s", "5s"));
    broker.writes.clear();
    broker.reads.clear();

    for (int pass = 0; pass < 10; pass++) {
      SyncReport report = shared.declare(payment(QueueType.CLASSIC, "1s", "5s"));
      assertThat(report.actions()).isEmpty();
    }
    assertThat(broker.reads).as("the queues are not listed again, no queue is read").isEmpty();
    assertThat(broker.writes).isEmpty();
  }

  @Test
  void repairsWhatWasDeletedBehindItsBack() {
    ServiceTopology plan = payment(QueueType.CLASSIC, "1s");
    objects.declare(plan);
    broker.deleteQueue("q.payment.refund");
    broker.deleteExchange("payment.command.topic.ex");
    broker.writes.clear();

    objects.declare(plan);

    assertThat(broker.queues.keySet()).containsExactlyInAnyOrderElementsOf(plan.queueNames());
    assertThat(broker.bindings).containsExactlyInAnyOrderElementsOf(plan.bindings());
    assertThat(broker.writes).containsExactlyInAnyOrder(
        "declareExchange payment.command.topic.ex",
        "declareQueue q.payment.refund",
        "bind payment.command.topic.ex q.payment.pay service.payment.pay",
        "bind payment.command.topic.ex q.payment.refund service.payment.refund");
  }

  @Test
  void removesStaleBindingsOfItsOwnQueuesOnly() {
    objects.declare(payment(QueueType.CLASSIC));
    broker.queues.put("q.inventory.reserve", new BrokerQueue("q.inventory.reserve", Map.of(), 0, 0));
    BindingSpec stale = new BindingSpec("payment.command.topic.ex", "q.payment.pay", "service.payment.old");
    BindingSpec foreign = new BindingSpec("payment.command.topic.ex", "q.inventory.reserve", "service.payment.pay");
    broker.bindings.add(stale);
    broker.bindings.add(foreign);

    SyncReport report = objects.declare(payment(QueueType.CLASSIC));

    assertThat(broker.bindings).doesNotContain(stale).contains(foreign);
    assertThat(report.actions()).contains("unbound q.payment.pay from payment.command.topic.ex ('service.payment.old')");
  }

  /** While a Workflow's older revisions' routes are not known yet, bindings beyond the plan are kept; later removed. */
  @Test
  void aWorkflowKeepsBindingsBeyondItsPlanUntilItIsKnownWhichAreNeeded() {
    WorkflowBrokerObjects workflows = new WorkflowBrokerObjects(new TopologySync(broker.snapshot()));
    OrchestratorTopology plan = TopologyPlanner.plan(new WorkflowModel("order", "order", QueueType.CLASSIC,
        List.of(new WorkflowModel.Step("charge", "payment", "pay", null))));
    workflows.declare(plan);
    BindingSpec older = new BindingSpec("payment.event.topic.ex", "q.orchestrator.order", "order.charge.success");
    broker.bindings.add(older);

    workflows.declare(plan, false);
    assertThat(broker.bindings).contains(older).containsAll(plan.bindings());
    workflows.declare(plan, true);
    assertThat(broker.bindings).doesNotContain(older).containsAll(plan.bindings());
  }

  @Test
  void changedDelaysMoveTheFirstTierBindingAndDeleteEmptyOldTiers() {
    objects.declare(payment(QueueType.CLASSIC, "1s", "5s"));

    SyncReport report = objects.declare(payment(QueueType.CLASSIC, "2s"));

    assertThat(broker.queues).containsKey("q.retry.payment.pay.2s")
        .doesNotContainKeys("q.retry.payment.pay.1s", "q.retry.payment.pay.5s");
    assertThat(broker.bindings)
        .contains(new BindingSpec("payment.retry.direct.ex", "q.retry.payment.pay.2s", "q.payment.pay"))
        .noneMatch(b -> b.queue().equals("q.retry.payment.pay.1s"));
    assertThat(report.draining()).isEmpty();
  }

  @Test
  void anOldTierHoldingMessagesIsKeptUntilDrainedAndStaysAddressableByName() {
    objects.declare(payment(QueueType.CLASSIC, "5s"));
    broker.fill("q.retry.payment.pay.5s", 3);

    SyncReport report = objects.declare(payment(QueueType.CLASSIC, "1s"));

    assertThat(report.draining()).extracting(BrokerQueue::name).containsExactly("q.retry.payment.pay.5s");
    assertThat(broker.queues).containsKeys("q.retry.payment.pay.5s", "q.retry.payment.pay.1s");
    assertThat(broker.bindings)
        .as("nacks now go to the new first tier only")
        .contains(new BindingSpec("payment.retry.direct.ex", "q.retry.payment.pay.1s", "q.payment.pay"))
        .doesNotContain(new BindingSpec("payment.retry.direct.ex", "q.retry.payment.pay.5s", "q.payment.pay"))
        .as("a worker still on the old plan can publish into the old tier by name")
        .contains(new BindingSpec("payment.retry.direct.ex", "q.retry.payment.pay.5s", "q.retry.payment.pay.5s"));

    broker.fill("q.retry.payment.pay.5s", 0);
    SyncReport drained = objects.declare(payment(QueueType.CLASSIC, "1s"));
    assertThat(drained.draining()).isEmpty();
    assertThat(broker.queues).doesNotContainKey("q.retry.payment.pay.5s");
    assertThat(broker.bindings).noneMatch(b -> b.queue().equals("q.retry.payment.pay.5s"));
  }

  @Test
  void aChangedImmutableArgumentIsReportedWithWhatToDoAndEverythingElseIsApplied() {
    objects.declare(payment(QueueType.CLASSIC));
    broker.deleteQueue("q.dlx.payment.refund");

    SyncReport report = objects.declare(payment(QueueType.QUORUM));

    assertThat(report.mismatches()).extracting(ImmutableMismatch::name)
        .containsExactlyInAnyOrder("q.payment.pay", "q.dlx.payment.pay", "q.payment.refund");
    assertThat(report.mismatches()).allMatch(m -> m.property().equals("x-queue-type")
        && m.actual().equals("classic") && m.desired().equals("quorum"));
    assertThat(broker.queues.get("q.dlx.payment.refund").arguments()).containsEntry("x-queue-type", "quorum");
    assertThat(broker.queues.get("q.payment.pay").arguments()).containsEntry("x-queue-type", "classic");
    String advice = report.mismatches().get(0).advice(ServiceBrokerObjects.SPEC_FIELDS);
    assertThat(advice).contains("drain q.payment.pay and delete it").contains("set spec.queue.type back to classic");
  }

  @Test
  void argumentsReadBackAsOtherNumberTypesStillMatch() {
    objects.declare(payment(QueueType.CLASSIC, "30s"));
    BrokerQueue tier = broker.queues.get("q.retry.payment.pay.30s");
    Map<String, Object> asJson = tier.arguments().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> e.getValue() instanceof Long l ? (Object) l.intValue() : e.getValue()));
    broker.queues.put(tier.name(), new BrokerQueue(tier.name(), asJson, 0, 0));

    assertThat(objects.declare(payment(QueueType.CLASSIC, "30s")).mismatches()).isEmpty();
  }

  @Test
  void anExchangeOfTheWrongTypeIsReportedNotRedeclared() {
    broker.exchanges.put("payment.retry.direct.ex", "topic");

    SyncReport report = objects.declare(payment(QueueType.CLASSIC));

    assertThat(report.mismatches()).singleElement().satisfies(m -> {
      assertThat(m.kind()).isEqualTo(ImmutableMismatch.Kind.EXCHANGE);
      assertThat(m.advice(ServiceBrokerObjects.SPEC_FIELDS)).contains("delete payment.retry.direct.ex")
          .contains("changed outside Baton");
    });
  }

  @Test
  void aSubscriptionDeclaresItsSourceExchangeButNeverRemovesIt() {
    ServiceTopology sms = TopologyPlanner.plan(new ServiceModel("sms", QueueType.CLASSIC, List.of(),
        List.of(new ServiceModel.Subscription("notify", "payment", "*.pay.failed", RetryStaircase.NONE))));
    objects.declare(sms);
    assertThat(broker.exchanges).containsKey("payment.event.topic.ex");
    assertThat(broker.bindings).contains(new BindingSpec("payment.event.topic.ex", "q.sms.notify", "*.pay.failed"));

    objects.remove("sms", false);
    assertThat(broker.exchanges).containsOnlyKeys("payment.event.topic.ex");
    assertThat(broker.queues).isEmpty();
  }

  @Test
  void removeWithDeleteTakesEverythingOfTheServiceAndNothingElse() {
    objects.declare(payment(QueueType.CLASSIC, "1s"));
    broker.queues.put("q.paymentx.pay", new BrokerQueue("q.paymentx.pay", Map.of(), 0, 0));
    broker.fill("q.payment.pay", 5);

    RemovalReport report = objects.remove("payment", false);

    assertThat(broker.queues).containsOnlyKeys("q.paymentx.pay");
    assertThat(broker.exchanges).isEmpty();
    assertThat(report.retained()).isEmpty();
  }

  @Test
  void removeWithRetainKeepsQueuesWithMessagesAndTheWayBack() {
    objects.declare(payment(QueueType.CLASSIC, "1s"));
    broker.fill("q.dlx.payment.refund", 2);

    RemovalReport report = objects.remove("payment", true);

    assertThat(broker.queues).containsOnlyKeys("q.dlx.payment.refund");
    assertThat(report.retained()).extracting(BrokerQueue::name).containsExactly("q.dlx.payment.refund");
    assertThat(broker.exchanges).as("kept: they route retained messages").hasSize(3);

    objects.declare(payment(QueueType.CLASSIC, "1s"));
    broker.fill("q.retry.payment.pay.1s", 1);
    objects.remove("payment", true);
    assertThat(broker.queues).as("a retry tier's messages return to its consumer queue, so that one stays too")
        .containsKeys("q.retry.payment.pay.1s", "q.payment.pay")
        .doesNotContainKeys("q.dlx.payment.pay", "q.payment.refund");
  }

  @Test
  void removeOnABrokerThatHasNothingSucceeds() {
    RemovalReport report = objects.remove("payment", true);
    assertThat(report.deleted()).isEmpty();
  }

  @Test
  void anUnreachableBrokerSurfacesAsUnavailable() {
    broker.unreachable = true;
    assertThatThrownBy(() -> objects.declare(payment(QueueType.CLASSIC)))
        .isInstanceOfSatisfying(BrokerException.class, e -> assertThat(e.failure()).isEqualTo(BrokerException.Failure.UNAVAILABLE));
  }

  @Test
  void ownershipByNameCoversExactlyTheServicesQueues() {
    Ownership o = Ownership.ofService("payment");
    assertThat(o.roleOf("q.payment.pay")).contains(QueueSpec.Role.CONSUMER);
    assertThat(o.roleOf("q.retry.payment.pay.30s")).contains(QueueSpec.Role.RETRY_TIER);
    assertThat(o.roleOf("q.dlx.payment.pay")).contains(QueueSpec.Role.DEAD_LETTER);
    assertThat(o.roleOf("q.payments.pay")).isEmpty();
    assertThat(o.roleOf("q.orchestrator.payment")).isEmpty();
    Ownership w = Ownership.ofWorkflow("order.v2");
    assertThat(w.roleOf("q.orchestrator.order.v2")).contains(QueueSpec.Role.ORCHESTRATOR);
    assertThat(w.roleOf("q.orchestrator.orderXv2")).isEmpty();
    assertThat(w.roleOf("q.dlx.orchestrator.order.v2")).contains(QueueSpec.Role.ORCHESTRATOR_DEAD_LETTER);
  }
}
