package dev.baton.worker;

import static dev.baton.worker.ProcessorFixture.command;
import static dev.baton.worker.Uninterruptible.ignoringInterrupts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.baton.messaging.OutboundMessage;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A handler that outlives its time limit, decided without a broker: it is interrupted and its channel goes on, but
 * its run is over only when it really ends, its message is not run a second time meanwhile, and its outcome, however
 * late, is the outcome. Handlers run on a bounded pool.
 */
class HandlerOverrunTest {

  static final Duration WAIT = Duration.ofSeconds(10);

  final ProcessorFixture fixture = new ProcessorFixture(4, Duration.ofMillis(200));

  @RegisterExtension
  final CapturedLines lines = new CapturedLines(TimedHandlers.class.getName());

  @AfterEach
  void release() {
    fixture.close();
  }

  @Test
  void aHandlerPastItsLimitIsInterruptedAndReportedOverrunButItsRunEndsOnlyWhenItReturns() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    TimedHandlers.Run<String> run = fixture.handlers.start("command pay", "m-1", () -> Duration.ofMillis(100),
        () -> ignoringInterrupts(gate, "late but done"));

    assertThat(run.overran().get(5, TimeUnit.SECONDS)).isEqualTo(Duration.ofMillis(100));
    assertThat(run.ended()).as("still running").isNotDone();
    gate.countDown();

    assertThat(run.ended().get(5, TimeUnit.SECONDS)).isEqualTo("late but done");
  }

  @Test
  void aHandlerThatOverranItsLimitAndThenThrewFailsWithAHandlerTimeout() {
    TimedHandlers.Run<String> run = fixture.handlers.start("command pay", "m-1", () -> Duration.ofMillis(100),
        () -> {
          new CountDownLatch(1).await(); // until interrupted
          return "never";
        });

    assertThat(run.ended()).failsWithin(WAIT).withThrowableOfType(Exception.class)
        .havingCause().isInstanceOf(HandlerTimeoutException.class)
        .withMessageStartingWith("the handler of command pay did not finish within 100 ms")
        .havingCause().isInstanceOf(InterruptedException.class);
  }

  @Test
  void aHandlerStillRunningAtTwiceItsLimitIsReportedStuckWithItsMessageIdAndHowLong() {
    CountDownLatch gate = new CountDownLatch(1);
    TimedHandlers.Run<String> run = fixture.handlers.start("command pay", "m-stuck", () -> Duration.ofMillis(100),
        () -> ignoringInterrupts(gate, "done"));

    await().atMost(WAIT).until(() -> fixture.listener.stuck.contains("m-stuck"));
    gate.countDown();
    assertThat(run.ended()).succeedsWithin(WAIT);
    assertThat(lines.list()).filteredOn(e -> e.getLevel() == Level.WARN)
        .map(ILoggingEvent::getFormattedMessage)
        .anySatisfy(line -> assertThat(line).contains("message_id=m-stuck").contains("is stuck: running for")
            .containsPattern("running for \\d+ ms, past its limit of 100 ms"));
  }

  @Test
  void atMostTheConfiguredNumberOfHandlersRunAtOnceAndTheOthersWaitForAThread() {
    try (ProcessorFixture twoThreads = new ProcessorFixture(2, Duration.ofMinutes(1))) {
      CountDownLatch gate = new CountDownLatch(1);
      AtomicInteger started = new AtomicInteger();
      List<TimedHandlers.Run<String>> runs = new CopyOnWriteArrayList<>();
      for (int i = 0; i < 4; i++) {
        runs.add(twoThreads.handlers.start("command pay", "m-" + i, () -> Duration.ofMillis(100), () -> {
          started.incrementAndGet();
          return ignoringInterrupts(gate, "done");
        }));
      }

      await().atMost(WAIT).until(() -> started.get() == 2);
      await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> started.get() == 2);
      assertThat(runs.get(2).overran()).as("its limit counts from its start, and it has not started")
          .isNotDone();
      gate.countDown();

      for (TimedHandlers.Run<String> run : runs) {
        assertThat(run.ended()).succeedsWithin(WAIT).isEqualTo("done");
      }
      assertThat(started).hasValue(4);
    }
  }

  @Test
  void handlersThatNeverStartedEndAsClosingWhenTheWorkerCloses() {
    ProcessorFixture oneThread = new ProcessorFixture(1, Duration.ofMinutes(1));
    CountDownLatch never = new CountDownLatch(1);
    oneThread.handlers.start("command pay", "m-0", () -> Duration.ofMinutes(1), () -> never.await(1, TimeUnit.MINUTES));
    TimedHandlers.Run<Boolean> waiting = oneThread.handlers.start("command pay", "m-1", () -> Duration.ofMinutes(1),
        () -> true);

    oneThread.close();

    assertThat(waiting.ended()).failsWithin(WAIT).withThrowableOfType(Exception.class)
        .havingCause().isInstanceOf(IllegalStateException.class).withMessage("the worker is closing");
  }

  @Test
  void aCopyOfACommandWhoseHandlerOutlivedItsLimitIsNotRunAgainAndGetsTheLateOutcomeFromTheStore() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    AtomicInteger runs = new AtomicInteger();
    CommandProcessor processor = fixture.processor(cmd -> {
      runs.incrementAndGet();
      return ignoringInterrupts(gate, CommandResult.success(Map.of("charged", 42)));
    });

    DeliveryDecision first = processor.decide(command("m-slow", Map.of())).get(5, TimeUnit.SECONDS);
    assertThat(first.overdue()).as("the channel goes on, the delivery waits for its handler").isNotNull();
    assertThat(first.publishes()).isEmpty();

    // A redelivery (or a retry, or a re-send) of the same message while the first handler still runs.
    DeliveryDecision copy = processor.decide(command("m-slow", Map.of())).get(5, TimeUnit.SECONDS);
    assertThat(copy.later()).as("put aside until the first handler really ends").isNotNull().isNotDone();
    await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> !copy.later().isDone() && runs.get() == 1);

    gate.countDown();
    DeliveryDecision late = first.overdue().get(5, TimeUnit.SECONDS);
    assertThat(late.publishes()).extracting(OutboundMessage::routingKey).containsExactly("order.pay.success");
    assertThat(copy.later()).succeedsWithin(WAIT);
    assertThat(fixture.store.find("m-slow")).as("remembered like any outcome")
        .contains(CommandResult.success(Map.of("charged", 42)));

    DeliveryDecision again = processor.decide(command("m-slow", Map.of())).get(5, TimeUnit.SECONDS);
    assertThat(again.publishes()).singleElement().satisfies(event -> {
      assertThat(event.routingKey()).isEqualTo("order.pay.success");
      assertThat(event.messageId()).isEqualTo(late.publishes().get(0).messageId());
    });
    assertThat(runs).hasValue(1);
  }

  @Test
  void aCommandWhoseHandlerOverranAndThenFailedClimbsTheStaircaseOnlyOnceItEnded() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    CommandProcessor processor = fixture.processor(cmd -> {
      ignoringInterrupts(gate, null);
      throw new IllegalStateException("bank unreachable");
    });

    CompletableFuture<DeliveryDecision> deciding = processor.decide(command("m-fail", Map.of()));
    DeliveryDecision first = deciding.get(5, TimeUnit.SECONDS);
    assertThat(first.overdue()).isNotNull().isNotDone();
    gate.countDown();

    DeliveryDecision retry = first.overdue().get(5, TimeUnit.SECONDS);
    assertThat(retry.publishes()).singleElement().satisfies(m -> {
      assertThat(m.routingKey()).isEqualTo("q.retry.payment.pay.1s");
      assertThat(m.properties().getHeaders()).containsEntry("baton-retries", 1);
    });
    assertThat(fixture.store.find("m-fail")).as("a technical failure is never remembered").isEmpty();
  }
}
