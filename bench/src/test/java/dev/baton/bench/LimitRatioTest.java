package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The limit sweep's figure when the machine's speed changes during the sweep. */
class LimitRatioTest {

  @Test
  void aMachineSlowingDownEvenlyIsNotCountedAsTheLimitsCost() {
    // Unlimited 1,262 then 929 two points later: a limited point at 1,095 in between costs nothing.
    assertThat(LimitRatio.bracketed(1_262, 1_095.5, 929)).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void aLimitedPointSlowerThanBothNeighboursShowsItsCost() {
    assertThat(LimitRatio.bracketed(3_000, 2_700, 3_000)).isCloseTo(0.9, within(1e-9));
  }
}
