package dev.baton.runtime.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.store.LimitStore.Limit;
import dev.baton.runtime.store.OutboxMessage;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LimitedClaimsTest {

  static final long POLL = 1_000_000_000L;
  final AtomicLong now = new AtomicLong(5_000_000_000L);
  final LimitedClaims claims = new LimitedClaims(POLL, now::get);
  static final Limit PAY = new Limit("payment.command.topic.ex", "service.payment.pay", "shop", "payment", "pay", 50);

  static OutboxMessage command(String exchange, String routingKey) {
    return new OutboxMessage(UUID.randomUUID(), exchange, routingKey, null, "{}", new byte[0]);
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
}
