package dev.baton.operator.topology;

import dev.baton.operator.TestClock;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.operator.broker.FakeBrokerClient;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Queues the spec no longer lists, and queues of deleted resources, on both queue types: nothing that holds a message
 * or has a consumer is deleted; RabbitMQ refuses "if empty" on quorum queues (the fake throws as the broker answers
 * 400), so those are unbound first and deleted once the broker still finds them empty; Retain stops what it keeps from
 * filling up.
 */
class RetirementTest {

  final FakeBrokerClient broker = new FakeBrokerClient();
  final TestClock clock = new TestClock();
  final TopologySync sync = new TopologySync(broker.snapshot(), clock);
  final ServiceBrokerObjects services = new ServiceBrokerObjects(sync);

  static ServiceTopology payment(QueueType type, List<String> payDelays, boolean refund) {
    RetryStaircase pay = payDelays.isEmpty() ? RetryStaircase.NONE : RetryStaircase.of(payDelays.size() + 1, payDelays);
    List<ServiceModel.Command> commands = refund
        ? List.of(new ServiceModel.Command("pay", pay), new ServiceModel.Command("refund", RetryStaircase.NONE))
        : List.of(new ServiceModel.Command("pay", pay));
    return TopologyPlanner.plan(new ServiceModel("payment", type, commands, List.of()));
  }

  @ParameterizedTest
  @EnumSource(QueueType.class)
  void anEmptyOldTierIsRetired(QueueType type) {
    services.declare(payment(type, List.of("5s"), false));
    SyncReport first = services.declare(payment(type, List.of("1s"), false));

    if (type == QueueType.CLASSIC) {
      assertThat(first.draining()).isEmpty();
      assertThat(broker.queues).doesNotContainKey("q.retry.payment.pay.5s");
      return;
    }
    assertThat(first.draining()).as("unbound, deleted on a later pass").hasSize(1);
    assertThat(broker.bindings).noneMatch(b -> b.queue().equals("q.retry.payment.pay.5s"));
    clock.advance(TopologySync.QUORUM_SETTLE.minusSeconds(1));
    assertThat(services.declare(payment(type, List.of("1s"), false)).draining()).hasSize(1);
    clock.advance(java.time.Duration.ofSeconds(2));
    SyncReport later = services.declare(payment(type, List.of("1s"), false));
    assertThat(later.draining()).isEmpty();
    assertThat(broker.queues).doesNotContainKey("q.retry.payment.pay.5s");
  }

  @ParameterizedTest
  @EnumSource(QueueType.class)
  void aRemovedCommandsQueueWithConsumersOrUnackedMessagesIsNeverDeleted(QueueType type) {
    services.declare(payment(type, List.of(), true));
    broker.counts("q.payment.refund", 0, 0, 2);
    broker.counts("q.dlx.payment.refund", 3, 3, 0);

    for (int pass = 0; pass < 3; pass++) {
      services.declare(payment(type, List.of(), false));
      clock.advance(TopologySync.QUORUM_SETTLE.plusSeconds(1));
    }

    assertThat(broker.queues).as("consumers on it").containsKey("q.payment.refund");
    assertThat(broker.queues).as("unacknowledged messages in it").containsKey("q.dlx.payment.refund");

    broker.counts("q.payment.refund", 0, 0, 0);
    broker.counts("q.dlx.payment.refund", 0, 0, 0);
    for (int pass = 0; pass < 2; pass++) {
      services.declare(payment(type, List.of(), false));
      clock.advance(TopologySync.QUORUM_SETTLE.plusSeconds(1));
    }
    assertThat(broker.queues).doesNotContainKeys("q.payment.refund", "q.dlx.payment.refund");
  }

  @ParameterizedTest
  @EnumSource(QueueType.class)
  void unknownCountsKeepAQuorumQueue(QueueType type) {
    services.declare(payment(type, List.of(), true));
    broker.counts("q.payment.refund", -1, -1, -1); // statistics not collected yet

    for (int pass = 0; pass < 3; pass++) {
      services.declare(payment(type, List.of(), false));
      clock.advance(TopologySync.QUORUM_SETTLE.plusSeconds(1));
    }
    // A classic queue is the broker's to judge (if-empty and if-unused); a quorum queue waits for counts.
    assertThat(broker.queues.containsKey("q.payment.refund")).isEqualTo(type == QueueType.QUORUM);
  }

  @ParameterizedTest
  @EnumSource(QueueType.class)
  void retainUnbindsWhatItKeepsSoThatItStopsFillingUp(QueueType type) {
    services.declare(payment(type, List.of(), false));
    OrchestratorTopology orchestrator = TopologyPlanner.plan(new dev.baton.contract.topology.WorkflowModel("checkout",
        "order", type, List.of(new dev.baton.contract.topology.WorkflowModel.Step("charge", "payment", "pay", null))));
    WorkflowBrokerObjects workflows = new WorkflowBrokerObjects(sync);
    workflows.declare(orchestrator);
    broker.fill("q.orchestrator.checkout", 4);

    RemovalReport removed = workflows.remove("checkout", true);

    assertThat(removed.retained()).extracting(q -> q.name()).containsExactly("q.orchestrator.checkout");
    assertThat(broker.queues).containsKey("q.orchestrator.checkout");
    assertThat(broker.bindings).as("no other Workflow's events reach the retained queue any more")
        .noneMatch(b -> b.queue().equals("q.orchestrator.checkout"));
  }

  @ParameterizedTest
  @EnumSource(QueueType.class)
  void retainKeepsTheWayBackOfMessagesWaitingInRetryTiers(QueueType type) {
    services.declare(payment(type, List.of("1m"), false));
    broker.fill("q.retry.payment.pay.1m", 2);

    RemovalReport removed = services.remove("payment", true);

    assertThat(removed.retained()).extracting(q -> q.name())
        .containsExactlyInAnyOrder("q.retry.payment.pay.1m", "q.payment.pay");
    assertThat(broker.bindings).as("the tier's messages return to q.payment.pay through the command exchange")
        .contains(new BindingSpec("payment.command.topic.ex", "q.payment.pay", "service.payment.pay"))
        .noneMatch(b -> b.queue().equals("q.retry.payment.pay.1m"));
    assertThat(broker.exchanges).containsKeys("payment.command.topic.ex");
  }
}
