package dev.baton.operator.it;

import static dev.baton.operator.it.BrokerState.binding;
import static dev.baton.operator.it.Crs.retryPolicy;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Changing a RetryPolicy's delays moves the staircase of every WorkerService that uses it: new tiers, the first-tier
 * binding moved, old empty tiers deleted, and an old tier still holding a message kept until it has drained. The
 * resync is long here, so the RetryPolicy's own event is what reconciles the WorkerService.
 */
class RetryTiersFollowTheirPolicyIT {

  static final String NS = "tiers";
  static OperatorFixture f;
  static BrokerState broker;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("tiers", s -> s.withResync(Duration.ofSeconds(60)));
    broker = new BrokerState(f.management, f.vhost.name());
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void changedDelaysMoveTheTiersAndOldTiersGoOnceEmpty() {
    f.create(retryPolicy(NS, "steady", 3, "8s", "9s"));
    f.create(workerService(NS, "billing", "charge:steady"));
    f.awaitCondition(WorkerService.class, NS, "billing", ConditionTypes.TOPOLOGY_READY, true, "Declared");
    assertThat(broker.queues()).containsKeys("q.retry.billing.charge.8s", "q.retry.billing.charge.9s");

    // A worker's first retry waits in the 8s tier when the policy changes.
    Amqp.publish(f.vhost, "billing.retry.direct.ex", "q.retry.billing.charge.8s");
    f.edit(RetryPolicy.class, NS, "steady", p -> {
      p.getSpec().setDelays(List.of("1s", "2s"));
      return p;
    });

    await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> {
      Map<String, Map<String, Object>> queues = broker.queues();
      assertThat(queues.get("q.retry.billing.charge.1s")).containsEntry("x-message-ttl", 1000L);
      assertThat(queues.get("q.retry.billing.charge.2s")).containsEntry("x-message-ttl", 2000L);
      assertThat(queues).as("empty old tier deleted").doesNotContainKey("q.retry.billing.charge.9s");
      assertThat(queues).as("old tier holding a message kept").containsKey("q.retry.billing.charge.8s");
      assertThat(broker.bindings())
          .contains(binding("billing.retry.direct.ex", "q.retry.billing.charge.1s", "q.billing.charge"))
          .doesNotContain(binding("billing.retry.direct.ex", "q.retry.billing.charge.8s", "q.billing.charge"));
    });
    await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
      WorkerService ws = f.get(WorkerService.class, NS, "billing");
      assertThat(ws.getStatus().getCommands().get(0).getRetryQueues())
          .containsExactly("q.retry.billing.charge.1s", "q.retry.billing.charge.2s");
      assertThat(ws.getStatus().getDrainingQueues()).containsExactly("q.retry.billing.charge.8s");
      assertThat(ws.getStatus().isReady()).isTrue();
      assertThat(ws.getStatus().condition(ConditionTypes.READY).orElseThrow().getMessage())
          .contains("kept until empty: q.retry.billing.charge.8s");
    });

    // Its TTL returns the message to the command queue; then the old tier goes.
    await().atMost(WITHIN).untilAsserted(() -> {
      assertThat(broker.queues()).doesNotContainKey("q.retry.billing.charge.8s");
      assertThat(Amqp.ready(f.vhost, "q.billing.charge")).isEqualTo(1);
      assertThat(f.get(WorkerService.class, NS, "billing").getStatus().getDrainingQueues()).isEmpty();
    });
  }
}
