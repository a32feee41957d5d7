package dev.baton.runtime.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ClaimGateTest {

  static final long POLL = TimeUnit.SECONDS.toNanos(1);
  long now = 1_000_000_000L;
  final ClaimGate gate = new ClaimGate(POLL, () -> now);

  @Test
  void theFirstClaimIsDueForRowsAnEarlierRunLeft() {
    assertThat(gate.claimDue()).isTrue();
  }

  @Test
  void aWakeUpWithNothingWrittenSinceTheLastClaimBeganDoesNotClaim() {
    gate.written();
    gate.claiming(); // took the rows of that commit
    assertThat(gate.claimDue()).isFalse();
  }

  @Test
  void aCommitCountedAfterTheClaimBeganMakesTheNextClaimDue() {
    gate.claiming();
    gate.written(); // committed, maybe after the claim's snapshot
    assertThat(gate.claimDue()).isTrue();
    gate.claiming();
    assertThat(gate.claimDue()).isFalse();
  }

  @Test
  void aFullClaimIsFollowedByAnother() {
    gate.claiming();
    gate.claimedFull();
    assertThat(gate.claimDue()).isTrue();
    gate.claiming(); // this one came back short
    assertThat(gate.claimDue()).isFalse();
  }

  @Test
  void thePollIntervalAfterTheLastClaimMakesAClaimDue() {
    gate.claiming();
    now += POLL - 1;
    assertThat(gate.claimDue()).isFalse();
    now += 1;
    assertThat(gate.claimDue()).as("rows of other replicas, rows set aside whose time came").isTrue();
  }

  @Test
  void afterAFailedRoundTheNextClaimIsDue() {
    gate.claiming();
    gate.failed();
    assertThat(gate.claimDue()).isTrue();
  }
}
