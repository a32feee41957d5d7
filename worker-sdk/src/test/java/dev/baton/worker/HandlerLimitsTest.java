package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.Headers;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which timeout a handler gets (how the SDK's own variables are read: {@link FromEnvironmentTest}). */
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
}
