package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static dev.baton.worker.TestBroker.json;
import static dev.baton.worker.Uninterruptible.ignoringInterrupts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A handler that ignores its interrupt and outlives its time limit, on the real broker: the same command never runs a
 * second time while it may still run (neither a retry nor a redelivery starts it again), its late outcome is
 * published once and remembered, it is reported stuck, and the handler pool stays within its bound.
 */
class HandlerOverrunIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-overrun");

  /** Records the stuck reports. */
  static final class StuckReports implements WorkerListener {
    final List<String> messageIds = new CopyOnWriteArrayList<>();

    @Override
    public void stuck(String consumer, String messageId, Duration running) {
      messageIds.add(messageId);
    }
  }

  @Test
  void aHandlerThatOutlivesItsTimeoutIsNotRetriedWhileItRunsAndItsLateOutcomeIsPublishedOnce() throws Exception {
    ServiceModel model = TestBroker.commandService("slow", "pay", RetryStaircase.of(3, List.of("200ms")));
    String events = broker.declareWithEventProbe(model);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    StuckReports stuck = new StuckReports();

    try (BatonWorker worker = broker.worker(model)
        .handlerTimeout(Duration.ofMillis(300))
        .listener(stuck)
        .command("pay", cmd -> {
          int run = runs.incrementAndGet();
          return ignoringInterrupts(gate, CommandResult.success(Map.of("run", run)));
        })
        .build()) {
      worker.start();
      broker.sendCommand("slow", "pay", "m-1", commandBody("i-m-1", "{}"));

      await().atMost(TestBroker.WAIT).until(() -> stuck.messageIds.contains("m-1"));
      // Well past its 300 ms and its 200 ms retry tier: not retried, not run again, still unacked.
      await().during(Duration.ofMillis(700)).atMost(TestBroker.WAIT)
          .until(() -> runs.get() == 1 && broker.count(events) == 0 && worker.inFlight() == 1);

      gate.countDown();
      GetResponse late = broker.take(events);
      assertThat(late.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
      assertThat(header(late, "baton-retries")).isEqualTo("0");
      assertThat(json(late).get("output").get("run").asInt()).isEqualTo(1);
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
      assertThat(broker.count(events)).as("published once").isZero();

      // Remembered like any outcome: the same command again is answered from the store, not run.
      broker.sendCommand("slow", "pay", "m-1", commandBody("i-m-1", "{}"));
      GetResponse again = broker.take(events);
      assertThat(again.getProps().getMessageId()).isEqualTo(late.getProps().getMessageId());
      assertThat(json(again)).isEqualTo(json(late));
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(runs).hasValue(1);
    broker.assertEmpty("q.slow.pay", "q.retry.slow.pay.200ms", "q.dlx.slow.pay", events);
  }

  @Test
  void aRedeliveryWhileATimedOutHandlerStillRunsWaitsForItAndItsLateOutcomeIsPublishedOnce() throws Exception {
    ServiceModel model = TestBroker.commandService("redeliver", "pay", RetryStaircase.of(2, List.of("200ms")));
    String events = broker.declareWithEventProbe(model);
    CountDownLatch working = new CountDownLatch(1);
    CountDownLatch gate = new CountDownLatch(1);
    List<String> runs = new CopyOnWriteArrayList<>();
    StuckReports stuck = new StuckReports();

    try (BatonWorker worker = broker.cuttableWorker(model)
        .handlerTimeout(Duration.ofMillis(300))
        .listener(stuck)
        .command("pay", cmd -> {
          runs.add(cmd.messageId());
          if (cmd.messageId().equals("long")) {
            working.countDown();
            return ignoringInterrupts(gate, CommandResult.success(Map.of("late", true)));
          }
          return CommandResult.success();
        })
        .build()) {
      worker.start();
      broker.sendCommand("redeliver", "pay", "long", commandBody("i-long", "{}"));
      assertThat(working.await(5, TimeUnit.SECONDS)).isTrue();
      await().atMost(TestBroker.WAIT).until(() -> stuck.messageIds.contains("long"));

      // The network drops; the broker redelivers "long" on the recovered channel while its handler, past its limit,
      // still runs: the copy waits aside, and the queue goes on.
      broker.cutConnections();
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 2);
      broker.sendCommand("redeliver", "pay", "next", commandBody("i-next", "{}"));
      assertThat(broker.take(events).getProps().getCorrelationId()).isEqualTo("i-next");
      await().during(Duration.ofMillis(500)).atMost(TestBroker.WAIT)
          .until(() -> runs.equals(List.of("long", "next")) && broker.count(events) == 0);

      gate.countDown();
      GetResponse late = broker.take(events);
      assertThat(late.getProps().getCorrelationId()).isEqualTo("i-long");
      assertThat(late.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
      assertThat(json(late).get("output").get("late").asBoolean()).isTrue();
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(runs).containsExactly("long", "next");
    // The late outcome was published once; nothing was retried nor parked.
    broker.assertEmpty(events, "q.redeliver.pay", "q.retry.redeliver.pay.200ms", "q.dlx.redeliver.pay");
  }

  @Test
  void noMoreHandlersRunAtOnceThanTheBoundAndTheOtherDeliveriesWaitUnacked() throws Exception {
    ServiceModel model = TestBroker.commandService("bounded", "pay", RetryStaircase.NONE);
    String events = broker.declareWithEventProbe(model);
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    AtomicInteger running = new AtomicInteger();
    AtomicInteger mostAtOnce = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model)
        .handlerThreads(2)
        .handlerTimeout(Duration.ofMillis(200))
        .command("pay", cmd -> {
          started.incrementAndGet();
          mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
          try {
            return ignoringInterrupts(gate, CommandResult.success());
          } finally {
            running.decrementAndGet();
          }
        })
        .build()) {
      worker.start();
      broker.sendCommands("bounded", "pay", 4);

      // Two handlers past their limit hold both threads: the other two deliveries wait, unacked, none started.
      await().atMost(TestBroker.WAIT).until(() -> started.get() == 2);
      await().during(Duration.ofSeconds(1)).atMost(TestBroker.WAIT)
          .until(() -> started.get() == 2 && worker.inFlight() == 4 && broker.count("q.bounded.pay") == 0);

      gate.countDown();
      assertThat(broker.take(events, 4)).extracting(r -> r.getEnvelope().getRoutingKey())
          .containsOnly("order.pay.success");
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(started).hasValue(4);
    assertThat(mostAtOnce).hasValue(2);
    broker.assertEmpty("q.bounded.pay", "q.dlx.bounded.pay", events);
  }
}
