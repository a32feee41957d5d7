package dev.baton.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BatonDurationTest {

  @ParameterizedTest(name = "{0} -> {1} ({2} ms)")
  @CsvSource({
    "30s,    30s,   30000",
    "120s,   2m,    120000",
    "1m60s,  2m,    120000",
    "90s,    90s,   90000",
    "1500ms, 1500ms, 1500",
    "1000ms, 1s,    1000",
    "60m,    1h,    3600000",
    "1h30m,  90m,   5400000",
    "200ms,  200ms, 200",
  })
  void normalises(String written, String normalised, long millis) {
    BatonDuration d = BatonDuration.parse(written);
    assertThat(d.toString()).isEqualTo(normalised);
    assertThat(d.toMillis()).isEqualTo(millis);
    assertThat(BatonDuration.isValid(written)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "30", "s", "30 s", "1.5s", "-1s", "30sec", "2d", "0s", "0ms0s", "30S", "1m 30s"})
  void rejectsWithAMessageSayingWhatToWrite(String written) {
    assertThat(BatonDuration.isValid(written)).isFalse();
    assertThatThrownBy(() -> BatonDuration.parse(written))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'" + written + "'");
  }

  @org.junit.jupiter.api.Test
  void patternAgreesWithParserOnShape() {
    assertThat("1m30s").matches(BatonDuration.PATTERN);
    assertThat("1.5s").doesNotMatch(BatonDuration.PATTERN);
  }
}
