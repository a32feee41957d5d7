package dev.baton.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryStaircaseTest {

  @ParameterizedTest(name = "maxAttempts={0} delays={1}: retries wait {2}, tiers {3}")
  @CsvSource(delimiter = '|', value = {
    // maxAttempts | delays          | delay before retry 1..n | tiers
    "4 | 30s,2m,10m  | 30s,2m,10m      | 30s,2m,10m",
    "6 | 30s,2m      | 30s,2m,2m,2m,2m | 30s,2m",
    "2 | 30s,2m,10m  | 30s             | 30s",
    "3 | 200ms,400ms | 200ms,400ms     | 200ms,400ms",
    "4 | 1m,60s,2m   | 1m,1m,2m        | 1m,2m",
  })
  void climbsTheStaircaseAndRepeatsTheLastStep(int maxAttempts, String delays, String waits, String tiers) {
    RetryStaircase s = RetryStaircase.of(maxAttempts, List.of(delays.split(",")));
    List<String> expectedWaits = Arrays.asList(waits.split(","));
    assertThat(s.retries()).isEqualTo(expectedWaits.size());
    for (int k = 1; k <= s.retries(); k++) {
      assertThat(s.delayBeforeRetry(k)).hasToString(expectedWaits.get(k - 1));
    }
    assertThat(s.tiers()).map(BatonDuration::toString).containsExactly(tiers.split(","));
  }

  @Test
  void decidesRetryOrDeadLetterFromRetriesSoFar() {
    RetryStaircase s = RetryStaircase.of(3, List.of("1s"));
    assertThat(s.mayRetryAfter(0)).isTrue(); // first delivery failed -> retry 1
    assertThat(s.mayRetryAfter(1)).isTrue(); // retry 1 failed -> retry 2
    assertThat(s.mayRetryAfter(2)).isFalse(); // third delivery failed -> dead letter
    assertThat(RetryStaircase.NONE.mayRetryAfter(0)).isFalse();
    assertThat(RetryStaircase.NONE.tiers()).isEmpty();
  }

  @Test
  void refusesRetriesWithoutDelays() {
    assertThatThrownBy(() -> RetryStaircase.of(3, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no delays");
    assertThatThrownBy(() -> RetryStaircase.of(0, List.of("1s")))
        .hasMessageContaining("at least 1");
    assertThat(RetryStaircase.of(1, List.of()).hasRetries()).isFalse();
  }
}
