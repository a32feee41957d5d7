package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static dev.baton.worker.TestBroker.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.Headers;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A hung handler no longer stalls its queue: handlers run off the client's dispatch thread within
 * a timeout (the step's, from {@code baton-step-timeout}, bounded by the configured one), a timed-out handler is
 * interrupted and its command fails technically, and a duplicate redelivered while its first copy is still in the
 * handler waits aside instead of blocking the recovered channel.
 */
class HungHandlerIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-hung");

  static AMQP.BasicProperties withStepTimeout(String messageId, long millis) {
    return TestBroker.commandProperties(messageId, "pay", Headers.STEP_TIMEOUT, millis);
  }

  @Test
  void aHandlerPastItsStepTimeoutIsInterruptedRetriedAndTheCommandsBehindItGoOn() throws Exception {
    ServiceModel model = TestBroker.commandService("hung", "pay", RetryStaircase.of(2, List.of("200ms")));
    String events = broker.declareWithEventProbe(model);
    AtomicBoolean interrupted = new AtomicBoolean();
    AtomicInteger firstCalls = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          if (cmd.messageId().equals("slow") && firstCalls.getAndIncrement() == 0) {
            try {
              Thread.sleep(60_000); // hangs, until interrupted
            } catch (InterruptedException e) {
              interrupted.set(true);
              throw e;
            }
          }
          return CommandResult.success(Map.of("for", cmd.messageId()));
        })
        .build()) {
      worker.start();
      broker.sendCommand("hung", "pay", withStepTimeout("slow", 700), commandBody("i-slow", "{}"));
      broker.sendCommand("hung", "pay", "quick", commandBody("i-quick", "{}"));

      // One channel, handled in order: the command behind the hung one still gets its answer, once the hung handler
      // has been given up after its step's 700 ms (not after 60 s, nor never).
      GetResponse first = broker.take(events);
      assertThat(first.getProps().getCorrelationId()).isEqualTo("i-quick");
      assertThat(interrupted).isTrue();
      GetResponse retried = broker.take(events);
      assertThat(retried.getProps().getCorrelationId()).isEqualTo("i-slow");
      assertThat(retried.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
      assertThat(header(retried, "baton-retries")).isEqualTo("1");
    }
    assertThat(firstCalls).hasValue(2);
  }

  @Test
  void aHandlerPastTheConfiguredTimeoutOnTheLastAttemptIsDeadLetteredWithAnErrorEvent() throws Exception {
    ServiceModel model = TestBroker.commandService("stuck", "pay", RetryStaircase.NONE);
    String events = broker.declareWithEventProbe(model);

    try (BatonWorker worker = broker.worker(model)
        .handlerTimeout(Duration.ofMillis(300))
        .command("pay", cmd -> {
          new CountDownLatch(1).await(); // hangs for good
          return CommandResult.success();
        })
        .build()) {
      worker.start();
      // The step's 60 s is longer than the worker's 300 ms: the smaller one applies.
      broker.sendCommand("stuck", "pay", withStepTimeout("m-1", 60_000), commandBody("i-1", "{}"));

      GetResponse parked = broker.take("q.dlx.stuck.pay");
      assertThat(header(parked, "x-exception-type")).isEqualTo(HandlerTimeoutException.class.getName());
      assertThat(header(parked, "x-exception-message")).contains("did not finish within 300 ms");
      GetResponse error = broker.take(events);
      assertThat(error.getEnvelope().getRoutingKey()).isEqualTo("order.pay.error");
      assertThat(json(error).get("errorCode").asText()).isEqualTo(HandlerTimeoutException.class.getName());
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
  }

  @Test
  void aDuplicateRedeliveredWhileItsFirstCopyIsInTheHandlerDoesNotBlockTheRecoveredChannel() throws Exception {
    ServiceModel model = TestBroker.commandService("dup", "pay", RetryStaircase.NONE);
    String events = broker.declareWithEventProbe(model);
    CountDownLatch working = new CountDownLatch(1);
    CountDownLatch mayFinish = new CountDownLatch(1);
    List<String> calls = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.cuttableWorker(model)
        .command("pay", cmd -> {
          calls.add(cmd.messageId());
          if (cmd.messageId().equals("long")) {
            working.countDown();
            mayFinish.await(30, TimeUnit.SECONDS);
          }
          return CommandResult.success();
        })
        .build()) {
      worker.start();
      broker.sendCommand("dup", "pay", "long", commandBody("i-long", "{}"));
      assertThat(working.await(5, TimeUnit.SECONDS)).isTrue();

      // The network drops; the broker redelivers "long" on the recovered channel while its handler still works.
      broker.cutConnections();
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 2);
      broker.sendCommand("dup", "pay", "next", commandBody("i-next", "{}"));
      GetResponse next = broker.take(events);
      assertThat(next.getProps().getCorrelationId()).as("answered while 'long' is still in its handler")
          .isEqualTo("i-next");

      mayFinish.countDown();
      GetResponse longAnswer = broker.take(events);
      assertThat(longAnswer.getProps().getCorrelationId()).isEqualTo("i-long");
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(calls).containsExactly("long", "next");
    assertThat(broker.count(events)).isZero();
    assertThat(broker.count("q.dup.pay")).isZero();
  }
}
