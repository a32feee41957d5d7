package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** close() lets running handlers finish, publishes and acks their results, and gives prefetched work back. */
class GracefulShutdownIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-shutdown");

  @Test
  void closeWhileAHandlerWorksFinishesItPublishesItsEventAndAcks() throws Exception {
    ServiceModel model = TestBroker.commandService("payment", "pay", RetryStaircase.of(2, List.of("1s")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    CountDownLatch working = new CountDownLatch(1);
    CountDownLatch mayFinish = new CountDownLatch(1);
    List<String> handled = new CopyOnWriteArrayList<>();

    BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          handled.add(cmd.messageId());
          working.countDown();
          // Still working when close() is called; finishes while close() waits.
          mayFinish.await(5, TimeUnit.SECONDS);
          return CommandResult.success(Map.of("paid", cmd.messageId()));
        })
        .build();
    worker.start();
    // Two commands: the first is being handled, the second waits in the prefetch buffer.
    broker.sendCommand("payment", "pay", "m-1", commandBody("i-1", "{}"));
    broker.sendCommand("payment", "pay", "m-2", commandBody("i-2", "{}"));
    assertThat(working.await(5, TimeUnit.SECONDS)).isTrue();

    Thread closer = new Thread(worker::close, "closer");
    closer.start();
    await().atMost(TestBroker.WAIT).until(() -> closer.getState() == Thread.State.TIMED_WAITING
        || closer.getState() == Thread.State.WAITING);
    assertThat(worker.isRunning()).isFalse();
    mayFinish.countDown();
    closer.join(TestBroker.WAIT.toMillis());
    assertThat(closer.isAlive()).isFalse();

    GetResponse event = broker.take(events);
    assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
    assertThat(event.getProps().getMessageId()).isEqualTo(ResultEvents.eventMessageId("m-1", dev.baton.contract.EventResult.SUCCESS));
    assertThat(handled).containsExactly("m-1");
    assertThat(worker.inFlight()).isZero();
    // m-1 was acked; m-2 was never started and is back in the queue for another replica; nothing is unacked.
    assertThat(broker.count("q.payment.pay")).isEqualTo(1);
    GetResponse waiting = broker.take("q.payment.pay");
    assertThat(waiting.getProps().getMessageId()).isEqualTo("m-2");
    assertThat(broker.count(events)).isZero();

    worker.close(); // idempotent
    assertThatThrownBy(worker::start).isInstanceOf(IllegalStateException.class);
  }
}
