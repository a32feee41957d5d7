package dev.baton.operator.model;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.RetryPolicySpec;
import dev.baton.api.validation.Validated;
import dev.baton.contract.RetryStaircase;
import dev.baton.operator.status.Reason;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RetryPolicyTranslatorTest {

  static RetryPolicy policy(Integer maxAttempts, String delays) {
    RetryPolicy p = new RetryPolicy();
    p.getMetadata().setName("p");
    RetryPolicySpec spec = new RetryPolicySpec();
    spec.setMaxAttempts(maxAttempts);
    spec.setDelays(delays == null || delays.isBlank() ? List.of() : Arrays.asList(delays.split(" ")));
    p.setSpec(spec);
    return p;
  }

  @ParameterizedTest(name = "{0} attempts, [{1}] -> tiers [{2}]")
  @CsvSource(delimiter = '|', value = {
    "4 | 30s 2m 10m | 30s 2m 10m",
    "5 | 30s 120s   | 30s 2m",
    "3 | 1500ms     | 1500ms",
    "1 |            | ''",
    "6 | 1s 1s 2s   | 1s 2s",
  })
  void validPolicies(int maxAttempts, String delays, String tiers) {
    Validated<RetryStaircase> v = RetryPolicyTranslator.fromCrd(policy(maxAttempts, delays));
    assertThat(v.isValid()).isTrue();
    assertThat(String.join(" ", v.value().tiers().stream().map(Object::toString).toList())).isEqualTo(tiers);
  }

  @ParameterizedTest(name = "{0} attempts, [{1}] -> {2}")
  @CsvSource(delimiter = '|', value = {
    "3   | 30x     | spec.delays[0]: '30x' is not a duration",
    "3   | 30s 0s  | spec.delays[1]: '0s' is zero",
    "3   |         | spec.maxAttempts is 3 but spec.delays is empty",
    "0   | 1s      | spec.maxAttempts is 0: it must be between 1 and 100",
    "101 | 1s      | it must be between 1 and 100",
    "    | 1s      | spec.maxAttempts is required",
    "2   | 999999999h | spec.delays[0]: '999999999h' is longer than RabbitMQ's limit for message TTLs",
  })
  void invalidPoliciesBecomeProblemsNotExceptions(Integer maxAttempts, String delays, String message) {
    Validated<RetryStaircase> v = RetryPolicyTranslator.fromCrd(policy(maxAttempts, delays));
    assertThat(v.isValid()).isFalse();
    assertThat(Reason.of(v)).isEqualTo(Reason.INVALID_SPEC);
    assertThat(v.message()).contains(message);
  }
}
