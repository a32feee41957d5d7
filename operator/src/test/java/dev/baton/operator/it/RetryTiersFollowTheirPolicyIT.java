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
import dev.baton.api.v1alpha1.QueueKind;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Changing a RetryPolicy's delays moves the staircase of every WorkerService that uses it: new tiers, the first-tier
 * binding moved, old empty tiers deleted, and an old tier still holding a message kept until it has drained. The
 * resync is long here, so the RetryPolicy's own event is what reconciles the WorkerService. On both queue types: an
 * empty quorum tier, which RabbitMQ cannot delete "if empty", is unbound and deleted once the broker still finds it
 * empty some seconds later.
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

  @ParameterizedTest
  @EnumSource(QueueKind.class)
  void changedDelaysMoveTheTiersAndOldTiersGoOnceEmpty(QueueKind type) {
    String svc = "billing-" + type.name().toLowerCase(java.util.Locale.ROOT);
    String policy = "steady-" + type.name().toLowerCase(java.util.Locale.ROOT);
    // A quorum tier is deleted a settling time after it was found empty and unbound.
    Duration retired = type == QueueKind.QUORUM ? Duration.ofSeconds(30) : Duration.ofSeconds(6);
    f.create(retryPolicy(NS, policy, 3, "8s", "9s"));
    f.create(workerService(NS, svc, spec -> spec.getQueue().setType(type), "charge:" + policy));
    f.awaitCondition(WorkerService.class, NS, svc, ConditionTypes.TOPOLOGY_READY, true, "Declared");
    assertThat(broker.queues()).containsKeys("q.retry." + svc + ".charge.8s", "q.retry." + svc + ".charge.9s");

    // A worker's first retry waits in the 8s tier when the policy changes.
    Amqp.publish(f.vhost, svc + ".retry.direct.ex", "q.retry." + svc + ".charge.8s");
    f.edit(RetryPolicy.class, NS, policy, p -> {
      p.getSpec().setDelays(List.of("1s", "2s"));
      return p;
    });

    await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> {
      Map<String, Map<String, Object>> queues = broker.queues();
      assertThat(queues.get("q.retry." + svc + ".charge.1s")).containsEntry("x-message-ttl", 1000L);
      assertThat(queues.get("q.retry." + svc + ".charge.2s")).containsEntry("x-message-ttl", 2000L);
      assertThat(queues).as("old tier holding a message kept").containsKey("q.retry." + svc + ".charge.8s");
      assertThat(broker.bindings())
          .contains(binding(svc + ".retry.direct.ex", "q.retry." + svc + ".charge.1s", "q." + svc + ".charge"))
          .doesNotContain(binding(svc + ".retry.direct.ex", "q.retry." + svc + ".charge.8s", "q." + svc + ".charge"));
    });
    // Read while the old tier still holds its message (8 s from its publication): a quorum queue's retirement takes
    // longer than that, and once the message has gone back the tier goes too, from the status as from the broker.
    await().atMost(Duration.ofSeconds(6)).untilAsserted(() -> {
      WorkerService ws = f.get(WorkerService.class, NS, svc);
      assertThat(ws.getStatus().getCommands().get(0).getRetryQueues())
          .containsExactly("q.retry." + svc + ".charge.1s", "q.retry." + svc + ".charge.2s");
      assertThat(ws.getStatus().getDrainingQueues()).contains("q.retry." + svc + ".charge.8s");
      assertThat(ws.getStatus().isReady()).isTrue();
      assertThat(ws.getStatus().condition(ConditionTypes.READY).orElseThrow().getMessage())
          .contains("kept until empty: ").contains("q.retry." + svc + ".charge.8s");
    });
    await().atMost(retired).untilAsserted(() -> assertThat(broker.queues()).as("empty old tier deleted")
        .doesNotContainKey("q.retry." + svc + ".charge.9s"));

    // Its TTL returns the message to the command queue; then the old tier goes.
    await().atMost(WITHIN.plus(retired)).untilAsserted(() -> {
      assertThat(broker.queues()).doesNotContainKey("q.retry." + svc + ".charge.8s");
      assertThat(Amqp.ready(f.vhost, "q." + svc + ".charge")).isEqualTo(1);
      assertThat(f.get(WorkerService.class, NS, svc).getStatus().getDrainingQueues()).isEmpty();
    });
  }
}
