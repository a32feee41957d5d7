package dev.baton.worker;

import static dev.baton.worker.ProcessorFixture.body;
import static dev.baton.worker.ProcessorFixture.command;
import static dev.baton.worker.ProcessorFixture.millisFromNow;
import static dev.baton.worker.ProcessorFixture.withDeadline;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.impl.LongStringHelper;
import dev.baton.contract.EventResult;
import dev.baton.contract.Headers;
import dev.baton.messaging.OutboundMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the SDK does with a command's {@code baton-deadline} (docs/message-contract.md, "Deadline"), decided without a
 * broker: a command past it is never started and is answered {@code expired}; one started before it runs no longer
 * than until it.
 */
class DeadlineTest {

  final ProcessorFixture fixture = new ProcessorFixture(4, Duration.ofMinutes(10));
  final List<String> ran = new CopyOnWriteArrayList<>();
  final CommandProcessor processor = fixture.processor(cmd -> {
    ran.add(cmd.messageId());
    return CommandResult.success(Map.of("paid", true));
  });

  @AfterEach
  void close() {
    fixture.close();
  }

  /** What the processor finally decides (after the handler's end, should it outlive its limit). */
  static DeliveryDecision decided(CompletableFuture<DeliveryDecision> deciding) throws Exception {
    return DeliveryDecision.eventually(deciding).get(10, TimeUnit.SECONDS);
  }

  @Test
  void aCommandPastItsDeadlineIsNotRunAndIsAnsweredWithOneExpiredEventSayingByHowMuch() throws Exception {
    long deadline = millisFromNow(Duration.ofSeconds(-5));

    DeliveryDecision decision = decided(processor.decide(withDeadline("m-late", deadline)));

    assertThat(ran).isEmpty();
    assertThat(decision.rejected()).isFalse();
    assertThat(decision.publishes()).hasSize(1);
    OutboundMessage expired = decision.publishes().get(0);
    assertThat(expired.exchange()).isEqualTo("payment.event.topic.ex");
    assertThat(expired.routingKey()).isEqualTo("order.pay.expired");
    assertThat(expired.messageId()).isEqualTo(ResultEvents.eventMessageId("m-late", EventResult.EXPIRED));
    assertThat(expired.properties().getCorrelationId()).isEqualTo("i-m-late");
    assertThat(expired.properties().getHeaders()).containsEntry(Headers.DEADLINE, deadline)
        .containsEntry(Headers.INSTANCE, "i-m-late").containsEntry(Headers.RETRIES, 0)
        .containsEntry(Headers.ACTION, "pay");
    Matcher reason = Pattern.compile("not run: its deadline \\(baton-deadline\\) had passed (\\d+) ms before .*")
        .matcher(body(expired).get("reason").asText());
    assertThat(reason.matches()).as(reason.toString()).isTrue();
    assertThat(Long.parseLong(reason.group(1))).isBetween(5_000L, 15_000L);
    assertThat(body(expired).has("errorCode")).isFalse();
    assertThat(fixture.listener.expired).singleElement()
        .satisfies(late -> assertThat(late).isGreaterThanOrEqualTo(Duration.ofSeconds(5)));
  }

  @Test
  void aDeadlineWrittenAsDecimalTextCountsLikeANumber() throws Exception {
    String deadline = Long.toString(millisFromNow(Duration.ofSeconds(-1)));

    DeliveryDecision decision = decided(processor.decide(
        withDeadline("m-text", LongStringHelper.asLongString(deadline))));

    assertThat(ran).isEmpty();
    assertThat(decision.publishes()).extracting(OutboundMessage::routingKey).containsExactly("order.pay.expired");
  }

  @Test
  void aCommandBeforeItsDeadlineOrWithoutOneOrWithAnUnreadableOneIsRun() throws Exception {
    for (InboundMessage message : List.of(withDeadline("m-ahead", millisFromNow(Duration.ofMinutes(1))),
        command("m-none", Map.of()), withDeadline("m-soon", "soon"), withDeadline("m-zero", 0),
        withDeadline("m-list", List.of(1, 2)))) {
      DeliveryDecision decision = decided(processor.decide(message));
      assertThat(decision.publishes()).extracting(OutboundMessage::routingKey).containsExactly("order.pay.success");
    }
    assertThat(ran).containsExactly("m-ahead", "m-none", "m-soon", "m-zero", "m-list");
  }

  @Test
  void aCommandAnsweredBeforeIsAnsweredTheSameWayEvenPastItsDeadlineSinceItsEffectHappened() throws Exception {
    fixture.store.remember("m-done", CommandResult.success(Map.of("paid", true)));

    DeliveryDecision decision = decided(processor.decide(
        withDeadline("m-done", millisFromNow(Duration.ofSeconds(-5)))));

    assertThat(ran).isEmpty();
    assertThat(decision.publishes()).extracting(OutboundMessage::routingKey).containsExactly("order.pay.success");
    assertThat(fixture.listener.expired).isEmpty();
  }

  @Test
  void aCommandWhoseDeadlinePassesWhileItWaitsForAHandlerThreadIsNotStarted() throws Exception {
    try (ProcessorFixture oneThread = new ProcessorFixture(1, Duration.ofMinutes(10))) {
      CountDownLatch mayFinish = new CountDownLatch(1);
      CommandProcessor busy = oneThread.processor(cmd -> {
        ran.add(cmd.messageId());
        if (cmd.messageId().equals("m-first")) {
          mayFinish.await();
        }
        return CommandResult.success();
      });
      Instant deadline = Instant.now().plusMillis(300);
      CompletableFuture<DeliveryDecision> first = busy.decide(command("m-first", Map.of()));
      CompletableFuture<DeliveryDecision> second = busy.decide(withDeadline("m-second", deadline.toEpochMilli()));

      await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(deadline));
      assertThat(second).as("waits for the only thread").isNotDone();
      mayFinish.countDown();

      assertThat(decided(second).publishes()).extracting(OutboundMessage::routingKey)
          .containsExactly("order.pay.expired");
      assertThat(decided(first).publishes()).extracting(OutboundMessage::routingKey)
          .containsExactly("order.pay.success");
      assertThat(ran).containsExactly("m-first");
    }
  }

  @Test
  void theHandlerSeesTheDeadlineToFenceItsEffectBy() throws Exception {
    long deadline = millisFromNow(Duration.ofMinutes(1));
    AtomicReference<Optional<Instant>> seen = new AtomicReference<>();
    CommandProcessor fencing = fixture.processor(cmd -> {
      seen.set(cmd.deadline());
      return CommandResult.success();
    });

    decided(fencing.decide(withDeadline("m-1", Long.toString(deadline))));
    assertThat(seen.get()).contains(Instant.ofEpochMilli(deadline));
    decided(fencing.decide(withDeadline("m-2", "tomorrow")));
    assertThat(seen.get()).isEmpty();
    decided(fencing.decide(command("m-3", Map.of())));
    assertThat(seen.get()).isEmpty();
  }

  @Test
  void aHandlerStartedBeforeTheDeadlineIsInterruptedAtItAndItsCommandClimbsTheStaircase() throws Exception {
    long deadline = millisFromNow(Duration.ofMillis(400));
    CommandProcessor hanging = fixture.processor(cmd -> {
      new CountDownLatch(1).await(); // until interrupted
      return CommandResult.success();
    });

    DeliveryDecision decision = decided(hanging.decide(withDeadline("m-hang", deadline)));

    assertThat(decision.publishes()).singleElement().satisfies(retry -> {
      assertThat(retry.routingKey()).isEqualTo("q.retry.payment.pay.1s");
      assertThat(retry.properties().getHeaders()).as("the staircase keeps the deadline unchanged")
          .containsEntry(Headers.DEADLINE, deadline).containsEntry(Headers.RETRIES, 1);
    });
    assertThat(Instant.now()).as("interrupted at the deadline, not after the 10 minutes configured")
        .isBefore(Instant.ofEpochMilli(deadline).plusSeconds(5));
  }

  @Test
  void theTimeLimitIsTheSmallestOfTheConfiguredOneTheStepTimeoutAndTheTimeLeftUntilTheDeadline() {
    HandlerLimits limits = new HandlerLimits(Duration.ofMinutes(2), 1024);
    Instant now = Instant.parse("2030-01-01T00:00:00Z");
    long in30s = now.plusSeconds(30).toEpochMilli();

    assertThat(limits.limitFor(withDeadline("a", in30s), now)).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.limitFor(command("b", Map.of(Headers.DEADLINE, in30s, Headers.STEP_TIMEOUT, 10_000)), now))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(limits.limitFor(withDeadline("c", now.plusSeconds(600).toEpochMilli()), now))
        .isEqualTo(Duration.ofMinutes(2));
    assertThat(limits.limitFor(withDeadline("d", "garbage"), now)).isEqualTo(Duration.ofMinutes(2));
    assertThat(limits.limitFor(withDeadline("e", now.toEpochMilli()), now)).isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void aCommandHasExpiredFromItsDeadlineOnAndSaysByHowMuch() {
    Instant deadline = Instant.parse("2030-01-01T00:00:00Z");
    InboundMessage message = withDeadline("m", deadline.toEpochMilli());

    assertThat(HandlerLimits.expiredBy(message, deadline.minusMillis(1))).isEmpty();
    assertThat(HandlerLimits.expiredBy(message, deadline)).contains(Duration.ZERO);
    assertThat(HandlerLimits.expiredBy(message, deadline.plusMillis(1500))).contains(Duration.ofMillis(1500));
    assertThat(HandlerLimits.expiredBy(command("n", Map.of()), deadline)).isEmpty();
  }
}
