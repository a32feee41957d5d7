package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static dev.baton.worker.TestBroker.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.EventResult;
import dev.baton.contract.Headers;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A command's {@code baton-deadline} on the real broker: a worker never starts a command after it (first delivery or
 * a retry from the staircase), answers it {@code expired} and acks it; a handler started before it runs no longer than
 * until it.
 */
class DeadlineIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-deadline");

  static AMQP.BasicProperties withDeadline(String messageId, long deadline) {
    return TestBroker.commandProperties(messageId, "pay", Headers.DEADLINE, deadline);
  }

  @Test
  void aCommandPastItsDeadlineIsNeverHandledAndYieldsExactlyOneExpiredEventAndAnAck() throws Exception {
    ServiceModel model = TestBroker.commandService("late", "pay", RetryStaircase.of(3, List.of("200ms")));
    String events = broker.declareWithEventProbe(model);
    AtomicInteger calls = new AtomicInteger();
    List<Duration> expired = new CopyOnWriteArrayList<>();
    long deadline = Instant.now().minusSeconds(2).toEpochMilli();

    try (BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          calls.incrementAndGet();
          return CommandResult.success();
        })
        .listener(new WorkerListener() {
          @Override
          public void expired(String consumer, String messageId, Duration late) {
            expired.add(late);
          }
        })
        .build()) {
      worker.start();
      broker.sendCommand("late", "pay", withDeadline("m-1", deadline), commandBody("i-m-1", "{}"));

      GetResponse event = broker.take(events);
      assertThat(event.getEnvelope().getExchange()).isEqualTo("late.event.topic.ex");
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.expired");
      assertThat(event.getProps().getMessageId()).isEqualTo(ResultEvents.eventMessageId("m-1", EventResult.EXPIRED));
      assertThat(event.getProps().getCorrelationId()).isEqualTo("i-m-1");
      assertThat(header(event, Headers.DEADLINE)).isEqualTo(Long.toString(deadline));
      assertThat(header(event, Headers.STEP)).isEqualTo("charge");
      assertThat(json(event).get("reason").asText()).containsPattern("had passed \\d{4,} ms before");
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(calls).hasValue(0);
    assertThat(expired).hasSize(1);
    // Closed: anything left unacked would be back in the queue now; nothing was retried nor parked; one event only.
    broker.assertEmpty("q.late.pay", "q.retry.late.pay.200ms", "q.dlx.late.pay", events);
  }

  @Test
  void aCommandWhoseDeadlinePassesWhileItWaitsInARetryTierIsAnsweredExpiredOnItsNextDelivery() throws Exception {
    ServiceModel model = TestBroker.commandService("tier", "pay", RetryStaircase.of(3, List.of("1s")));
    String events = broker.declareWithEventProbe(model);
    List<Integer> runs = new CopyOnWriteArrayList<>();
    long deadline = Instant.now().plusMillis(700).toEpochMilli();

    try (BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          runs.add(cmd.retries());
          throw new IllegalStateException("bank down");
        })
        .build()) {
      worker.start();
      broker.sendCommand("tier", "pay", withDeadline("m-2", deadline), commandBody("i-m-2", "{}"));

      // The first delivery fails before the deadline and climbs to the 1s tier; it comes back after the deadline.
      GetResponse event = broker.take(events);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.expired");
      assertThat(header(event, Headers.RETRIES)).isEqualTo("1");
      assertThat(header(event, Headers.DEADLINE)).as("the staircase kept the deadline unchanged")
          .isEqualTo(Long.toString(deadline));
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(runs).containsExactly(0);
    broker.assertEmpty("q.tier.pay", "q.retry.tier.pay.1s", "q.dlx.tier.pay", events);
  }

  @Test
  void aHandlerStartedBeforeItsDeadlineIsGivenUpAtTheDeadlineRatherThanAtTheConfiguredTimeout() throws Exception {
    ServiceModel model = TestBroker.commandService("fence", "pay", RetryStaircase.NONE);
    String events = broker.declareWithEventProbe(model);
    long deadline = Instant.now().plusMillis(600).toEpochMilli();

    try (BatonWorker worker = broker.worker(model)
        .handlerTimeout(Duration.ofMinutes(10))
        .command("pay", cmd -> {
          new CountDownLatch(1).await(); // until interrupted
          return CommandResult.success();
        })
        .build()) {
      worker.start();
      broker.sendCommand("fence", "pay", withDeadline("m-3", deadline), commandBody("i-m-3", "{}"));

      GetResponse parked = broker.take("q.dlx.fence.pay");
      assertThat(header(parked, "x-exception-type")).isEqualTo(HandlerTimeoutException.class.getName());
      assertThat(Long.parseLong(header(parked, "x-exception-message").replaceFirst(".*did not finish within (\\d+) ms.*",
          "$1"))).isBetween(1L, 600L);
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.pay.error");
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
  }
}
