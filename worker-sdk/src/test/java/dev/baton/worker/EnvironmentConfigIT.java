package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.http.client.domain.ConsumerDetails;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.sandbox.LocalServices;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A worker configured only from the variables the operator injects into its pod. */
class EnvironmentConfigIT {

  static final ServiceModel MODEL = new ServiceModel("inventory", QueueType.CLASSIC,
      List.of(new ServiceModel.Command("reserve", RetryStaircase.of(2, List.of("1s"))),
          new ServiceModel.Command("release", RetryStaircase.NONE)),
      List.of(new ServiceModel.Subscription("payment-failed", "payment", "*.pay.failed", RetryStaircase.NONE)));

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-env");

  @BeforeAll
  static void declare() throws Exception {
    // results are published mandatory: a queue must be bound for them, as the orchestrator's is
    broker.declareWithEventProbe(MODEL);
  }

  /** What the operator puts in the Deployment: the plan's variables and the credentials Secret's. */
  static Map<String, String> podEnvironment() {
    Map<String, String> env = new HashMap<>(new WorkerEnvironment(MODEL, 7).variables());
    env.put(WorkerEnvironment.RABBITMQ_URI, broker.vhost.amqpUri("nobody", "wrong"));
    env.put(WorkerEnvironment.RABBITMQ_USERNAME, LocalServices.RABBITMQ_USERNAME);
    env.put(WorkerEnvironment.RABBITMQ_PASSWORD, LocalServices.RABBITMQ_PASSWORD);
    return env;
  }

  @Test
  void consumesTheQueuesTheVariablesNameWithTheirPrefetch() throws Exception {
    List<String> handled = new CopyOnWriteArrayList<>();
    try (BatonWorker worker = BatonWorker.builder()
        .fromEnvironment(podEnvironment())
        .command("reserve", cmd -> {
          handled.add("reserve " + cmd.messageId());
          return CommandResult.success();
        })
        .command("release", cmd -> {
          handled.add("release " + cmd.messageId());
          return CommandResult.success();
        })
        .subscription("payment-failed", event -> handled.add("payment-failed " + event.messageId()))
        .build()) {
      assertThat(worker.service()).isEqualTo("inventory");
      assertThat(worker.queues()).containsExactly("q.inventory.reserve", "q.inventory.release",
          "q.inventory.payment-failed");
      worker.start();

      broker.sendCommand("inventory", "reserve", "m-1", commandBody("i-1", "{}"));
      broker.sendCommand("inventory", "release", "m-2", commandBody("i-2", "{}"));
      broker.publish("payment.event.topic.ex", "order.pay.failed",
          new AMQP.BasicProperties.Builder().messageId("e-1").build(), "{}");
      await().atMost(TestBroker.WAIT).until(() -> handled.size() == 3 && worker.inFlight() == 0);
      assertThat(handled).containsExactlyInAnyOrder("reserve m-1", "release m-2", "payment-failed e-1");

      // One consumer per queue, manual ack, the prefetch of BATON_PREFETCH.
      List<ConsumerDetails> consumers = await().atMost(TestBroker.WAIT)
          .until(() -> broker.vhost.management().getConsumers(broker.vhost.name()), c -> c.size() == 3);
      assertThat(consumers).extracting(c -> c.getQueueDetails().getName())
          .containsExactlyInAnyOrder("q.inventory.reserve", "q.inventory.release", "q.inventory.payment-failed");
      assertThat(consumers).allSatisfy(c -> {
        assertThat(c.getPrefetchCount()).isEqualTo(7);
        assertThat(c.isAckRequired()).isTrue();
      });
    }
    assertThat(broker.count("q.inventory.reserve")).isZero();
  }

  @Test
  void theConnectionIsNamedAfterServiceAndHost() {
    assertThat(BrokerConnection.connectionName("inventory")).startsWith("baton-worker-inventory-")
        .hasSizeGreaterThan("baton-worker-inventory-".length());
  }

  @Test
  void aMissingVariableIsNamed() {
    Map<String, String> noUri = podEnvironment();
    noUri.remove(WorkerEnvironment.RABBITMQ_URI);
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(noUri))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("BATON_RABBITMQ_URI");

    Map<String, String> noService = podEnvironment();
    noService.remove(WorkerEnvironment.SERVICE);
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(noService))
        .hasMessageContaining("BATON_SERVICE");

    Map<String, String> noPassword = podEnvironment();
    noPassword.remove(WorkerEnvironment.RABBITMQ_PASSWORD);
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(noPassword))
        .hasMessageContaining("BATON_RABBITMQ_PASSWORD");
  }

  @Test
  void aBadUriIsReportedWithoutRepeatingIt() {
    Map<String, String> env = podEnvironment();
    env.put(WorkerEnvironment.RABBITMQ_URI, "http://user:s3cret@host");
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(env))
        .hasMessageContaining("BATON_RABBITMQ_URI").hasMessageNotContaining("s3cret");
  }

  @Test
  void everyQueueNeedsExactlyOneHandler() {
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(podEnvironment())
        .command("reserve", cmd -> CommandResult.success())
        .subscription("payment-failed", event -> {})
        .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("command 'release' of service inventory has no handler");
    assertThatThrownBy(() -> BatonWorker.builder().fromEnvironment(podEnvironment())
        .command("refund", cmd -> CommandResult.success())
        .build())
        .hasMessageContaining("service inventory has no command 'refund' (commands: reserve, release)");
    assertThatThrownBy(() -> BatonWorker.builder().command("x", cmd -> CommandResult.success()).build())
        .hasMessageContaining("fromEnvironment()");
  }

  @Test
  void aQueueTheUserCannotConsumeFailsStartWithAClearMessage() {
    ServiceModel undeclared = TestBroker.commandService("ghost", "haunt", RetryStaircase.NONE);
    BatonWorker worker = broker.worker(undeclared).command("haunt", cmd -> CommandResult.success()).build();
    assertThatThrownBy(worker::start)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot consume q.ghost.haunt")
        .hasMessageContaining("NOT_FOUND");
    assertThat(worker.isRunning()).isFalse();
    worker.close();
  }
}
