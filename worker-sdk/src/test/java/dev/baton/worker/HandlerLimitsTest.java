package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.Headers;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which timeout a handler gets, and how the SDK's own variables are read. */
class HandlerLimitsTest {

  static InboundMessage withHeaders(Map<String, Object> headers) {
    return new InboundMessage("ex", "key", false, new AMQP.BasicProperties.Builder().headers(headers).build(),
        new byte[0]);
  }

  final HandlerLimits limits = new HandlerLimits(Duration.ofMinutes(2), 1024);

  @Test
  void aCommandGetsTheSmallerOfItsStepTimeoutAndTheConfiguredOne() {
    assertThat(limits.timeoutFor(withHeaders(Map.of(Headers.STEP_TIMEOUT, 30_000)))).isEqualTo(Duration.ofSeconds(30));
    assertThat(limits.timeoutFor(withHeaders(Map.of(Headers.STEP_TIMEOUT, 600_000L)))).isEqualTo(Duration.ofMinutes(2));
    assertThat(limits.timeoutFor(withHeaders(Map.of(Headers.STEP_TIMEOUT, "45000")))).isEqualTo(Duration.ofSeconds(45));
  }

  @Test
  void withoutAUsableStepTimeoutTheConfiguredOneApplies() {
    assertThat(limits.timeoutFor(withHeaders(Map.of()))).isEqualTo(Duration.ofMinutes(2));
    assertThat(limits.timeoutFor(withHeaders(Map.of(Headers.STEP_TIMEOUT, "soon")))).isEqualTo(Duration.ofMinutes(2));
    assertThat(limits.timeoutFor(withHeaders(Map.of(Headers.STEP_TIMEOUT, 0)))).isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void theDefaultsAreTenMinutesAndSixteenMebibytes() {
    assertThat(HandlerLimits.DEFAULTS.handlerTimeout()).isEqualTo(Duration.ofMinutes(10));
    assertThat(HandlerLimits.DEFAULTS.maxResultBytes()).isEqualTo(16 * 1024 * 1024);
  }

  @Test
  void theEnvironmentSetsThemAndAMalformedValueNamesTheVariable() {
    Map<String, String> env = Map.of(WorkerSettings.HANDLER_TIMEOUT, "90s", WorkerSettings.MAX_RESULT_BYTES, "4096");
    assertThat(WorkerSettings.handlerTimeout(env)).contains(Duration.ofSeconds(90));
    assertThat(WorkerSettings.maxResultBytes(env)).contains(4096);
    assertThat(WorkerSettings.handlerTimeout(Map.of())).isEmpty();

    assertThatThrownBy(() -> WorkerSettings.handlerTimeout(Map.of(WorkerSettings.HANDLER_TIMEOUT, "abc")))
        .hasMessage("BATON_HANDLER_TIMEOUT: expected a duration such as 30s, got 'abc'");
    assertThatThrownBy(() -> WorkerSettings.maxResultBytes(Map.of(WorkerSettings.MAX_RESULT_BYTES, "16MiB")))
        .hasMessageStartingWith("BATON_MAX_RESULT_BYTES: expected a number of bytes");
  }
}
