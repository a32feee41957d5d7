package dev.baton.runtime.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.store.LimitStore;
import dev.baton.runtime.store.LimitStore.Limit;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.QueuedCommand;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LimitedClaimsTest {

  static final long POLL = 1_000_000_000L;
  final AtomicLong now = new AtomicLong(5_000_000_000L);
  final List<LimitedClaims.Ask> asked = new java.util.ArrayList<>();
  /** What the next reservation takes: the rows of those ids asked for, all of them unless told otherwise. */
  LimitStore.Claimed next = null;
  final LimitedClaims claims = new LimitedClaims((l, room, ids, below) -> {
    asked.add(new LimitedClaims.Ask(ids, below));
    return next != null ? next : new LimitStore.Claimed(ids.stream().map(LimitedClaimsTest::row).toList(), false,
        ids.size() >= room);
  }, POLL, now::get);
  static final Limit PAY = new Limit("payment.command.topic.ex", "service.payment.pay", "shop", "payment", "pay", 50);

  static final AtomicLong IDS = new AtomicLong();

  static QueuedCommand command(String exchange, String routingKey) {
    return new QueuedCommand(IDS.incrementAndGet(),
        new OutboxMessage(UUID.randomUUID(), exchange, routingKey, null, "{}", new byte[0]));
  }

  static OutboxRow row(long id) {
    return new OutboxRow(id, new OutboxMessage(UUID.randomUUID(), PAY.exchange(), PAY.routingKey(), null, "{}",
        new byte[0]), java.time.Instant.EPOCH, 0);
  }

  @Test
  void withoutLimitsNothingIsEverDueAndTheRelayWaitsItsPoll() {
    claims.handedOver(command("payment.command.topic.ex", "service.payment.pay"));

    assertThat(claims.anyDue()).isFalse();
    assertThat(claims.millisUntilDue(1000)).isEqualTo(1000);
  }

  @Test
  void aNewLimitIsDueAtOnce() {
    claims.limits(List.of(PAY));

    assertThat(claims.anyDue()).isTrue();
    assertThat(claims.millisUntilDue(1000)).isZero();
  }

  @Test
  void aCommandOfTheLimitedCommandHandedOverMakesItDueAndOthersDoNot() {
    claims.limits(List.of(PAY));
    claims.claiming(PAY);
    assertThat(claims.anyDue()).isFalse();
    assertThat(claims.millisUntilDue(5000)).isEqualTo(1000);

    claims.handedOver(command("payment.command.topic.ex", "service.payment.refund"));
    assertThat(claims.anyDue()).as("another command of the service").isFalse();

    claims.handedOver(command("payment.command.topic.ex", "service.payment.pay"));
    assertThat(claims.anyDue()).isTrue();
  }

  @Test
  void aLimitDueAtThePollBecomesDueWhenThePollHasPassed() {
    claims.limits(List.of(PAY));
    claims.claiming(PAY);
    now.addAndGet(POLL);

    assertThat(claims.anyDue()).isTrue();
  }

  @Test
  void aSaturatedLimitIsDueAgainAfterTheShortPoll() {
    claims.limits(List.of(PAY));
    claims.claiming(PAY);
    claims.saturated(PAY);

    assertThat(claims.millisUntilDue(1000)).isEqualTo(LimitedClaims.SHORT_POLL_NANOS / 1_000_000);
    now.addAndGet(LimitedClaims.SHORT_POLL_NANOS);
    assertThat(claims.anyDue()).isTrue();
  }

  @Test
  void aLimitThatIsGoneIsForgotten() {
    claims.limits(List.of(PAY));
    claims.limits(List.of());

    assertThat(claims.anyDue()).isFalse();
  }

  @Test
  void aNewLimitLooksForItsOldestRowsFirstThenTheCommandsThisRuntimeWroteAreReservedByTheirIds() throws Exception {
    claims.limits(List.of(PAY));
    claims.reserve(100);
    assertThat(asked).singleElement().satisfies(a -> assertThat(a.oldest()).as("rows may wait already").isTrue());

    QueuedCommand one = command(PAY.exchange(), PAY.routingKey());
    QueuedCommand two = command(PAY.exchange(), PAY.routingKey());
    claims.handedOver(one);
    claims.handedOver(two);
    List<OutboxRow> rows = claims.reserve(100);

    assertThat(asked.get(1).ids()).containsExactly(one.outboxId(), two.outboxId());
    assertThat(rows).extracting(OutboxRow::id).containsExactly(one.outboxId(), two.outboxId());
    assertThat(claims.anyDue()).as("nothing left until the poll").isFalse();
  }

  @Test
  void whenSomeOfTheCommandsAskedForWereNotTakenTheNextReservationTakesTheOldestSoTheRestGoOutInOrder()
      throws Exception {
    claims.limits(List.of(PAY));
    claims.reserve(100);
    QueuedCommand one = command(PAY.exchange(), PAY.routingKey());
    QueuedCommand two = command(PAY.exchange(), PAY.routingKey());
    claims.handedOver(one);
    claims.handedOver(two);
    next = new LimitStore.Claimed(List.of(row(one.outboxId())), true, false); // capacity for one; the other waits
    claims.reserve(100);

    assertThat(claims.millisUntilDue(1000)).as("the short poll").isEqualTo(LimitedClaims.SHORT_POLL_NANOS / 1_000_000);
    now.addAndGet(LimitedClaims.SHORT_POLL_NANOS);
    QueuedCommand three = command(PAY.exchange(), PAY.routingKey());
    claims.handedOver(three);
    next = null;
    claims.reserve(100);

    assertThat(asked.get(2).oldest()).as("two waits, and goes before three").isTrue();
    assertThat(asked.get(2).below()).as("three is reserved by its id after").isEqualTo(three.outboxId());
  }

  @Test
  void oncePerPollTheOldestAreLookedForEvenWhileThisRuntimeKeepsWritingRowsOtherReplicasMayHaveLeft()
      throws Exception {
    claims.limits(List.of(PAY));
    claims.reserve(100);
    claims.handedOver(command(PAY.exchange(), PAY.routingKey()));
    claims.reserve(100);
    assertThat(asked.get(1).oldest()).isFalse();

    now.addAndGet(POLL);
    claims.handedOver(command(PAY.exchange(), PAY.routingKey()));
    claims.reserve(100);

    assertThat(asked.get(2).oldest()).isTrue();
    next = new LimitStore.Claimed(List.of(), false, false); // nothing older
    claims.handedOver(command(PAY.exchange(), PAY.routingKey()));
    claims.reserve(100);
    assertThat(asked.get(3).oldest()).as("the one written since goes by its id").isFalse();
  }

  @Test
  void aFullReservationLeavesTheCommandDueAtOnce() throws Exception {
    claims.limits(List.of(PAY));
    claims.reserve(100);
    for (int i = 0; i < 5; i++) {
      claims.handedOver(command(PAY.exchange(), PAY.routingKey()));
    }

    assertThat(claims.reserve(3)).hasSize(3);
    assertThat(claims.anyDue()).isTrue();
    assertThat(claims.reserve(3)).hasSize(2);
  }
}
