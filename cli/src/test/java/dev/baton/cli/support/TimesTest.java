package dev.baton.cli.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class TimesTest {

  private final Instant now = Instant.parse("2026-12-01T12:00:00Z");

  @Test
  void aTimeOnTheSameDayIsItsClockTime() {
    assertThat(Times.clockOrDate(now, now)).isEqualTo(Times.clock(now)).doesNotContain("-");
  }

  @Test
  void aDeadlineADayAwayCarriesItsDateSoItDoesNotReadAsPassed() {
    Instant tomorrow = now.plus(Duration.ofHours(24));
    assertThat(Times.clockOrDate(tomorrow, now)).isEqualTo(Times.dateTime(tomorrow)).contains("2026-12-02");
  }

  @Test
  void spansAreShortAndRoundedDown() {
    assertThat(Times.span(Duration.ofMillis(230))).isEqualTo("230ms");
    assertThat(Times.span(Duration.ofSeconds(3 * 60 + 12))).isEqualTo("3m12s");
    assertThat(Times.span(Duration.ofHours(24).minusSeconds(1))).isEqualTo("23h");
  }
}
