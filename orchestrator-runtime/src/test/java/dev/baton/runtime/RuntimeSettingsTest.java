package dev.baton.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RuntimeSettingsTest {

  @Test
  void readsTheEnvironmentAndFallsBackToLocalDefaults() {
    RuntimeSettings s = RuntimeSettings.fromEnvironment(Map.of(
        "BATON_DATABASE_URL", "jdbc:postgresql://db:5432/baton",
        "BATON_DATABASE_PASSWORD", "s3cret",
        "BATON_DATABASE_CREATE", "false",
        "BATON_RABBITMQ_URI", "amqp://rt:hidden@mq:5672/%2F",
        "BATON_HTTP_PORT", "9090",
        "BATON_TIMEOUT_POLL_INTERVAL", "250ms",
        "BATON_RETENTION", "48h",
        "BATON_NAMESPACES", "shop, billing ,",
        "BATON_REQUIRE_READY", "yes"));
    assertThat(s.databaseUrl()).isEqualTo("jdbc:postgresql://db:5432/baton");
    assertThat(s.createDatabase()).isFalse();
    assertThat(s.httpPort()).isEqualTo(9090);
    assertThat(s.timeoutPollInterval()).isEqualTo(Duration.ofMillis(250));
    assertThat(s.retention()).isEqualTo(Duration.ofHours(48));
    assertThat(s.namespaces()).containsExactly("shop", "billing");
    assertThat(s.requireReady()).isTrue();
    assertThat(s.consumerThreads()).isEqualTo(RuntimeSettings.localDefaults().consumerThreads());
    assertThat(s.database().poolSize()).isEqualTo(s.consumerThreads() + 6);
  }

  @Test
  void neverPrintsCredentials() {
    RuntimeSettings s = RuntimeSettings.fromEnvironment(Map.of(
        "BATON_DATABASE_URL", "jdbc:postgresql://db:5432/baton?password=inurl",
        "BATON_DATABASE_PASSWORD", "s3cret",
        "BATON_RABBITMQ_URI", "amqp://rt:hidden@mq:5672/%2F",
        "BATON_RABBITMQ_PASSWORD", "alsohidden"));
    assertThat(s.toString()).doesNotContain("s3cret", "hidden", "inurl", "alsohidden");
  }

  @Test
  void aBadValueNamesItsVariable() {
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_HTTP_PORT", "eighty")))
        .hasMessageContaining("BATON_HTTP_PORT='eighty'");
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_RETENTION", "7d")))
        .hasMessageContaining("BATON_RETENTION").hasMessageContaining("duration");
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_PREFETCH", "0")))
        .hasMessageContaining("prefetch must be at least 1");
  }

  @Test
  void theFirstTenSettingsStillMakeARecord() {
    RuntimeSettings s = new RuntimeSettings("jdbc:postgresql://h/db", "u", "p", true, "amqp://u:p@h", "0.0.0.0", 0,
        2, 10, Duration.ofDays(1));
    assertThat(s.namespaces()).isEqualTo(List.of());
    assertThat(s.toBuilder().httpPort(8081).build().httpPort()).isEqualTo(8081);
  }
}
