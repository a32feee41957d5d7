package dev.baton.runtime.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.settings.InvalidSettingsException;
import dev.baton.runtime.http.auth.AuthMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
  void theNodesOfACluster() {
    assertThat(RuntimeSettings.fromEnvironment(Map.of("BATON_RABBITMQ_ADDRESSES", "mq-0:5672, mq-1:5672,mq-2"))
        .amqpAddresses()).containsExactly("mq-0:5672", "mq-1:5672", "mq-2");
    assertThat(RuntimeSettings.fromEnvironment(Map.of()).amqpAddresses()).isEmpty();
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_RABBITMQ_ADDRESSES", "mq-0:port")))
        .hasMessageContaining("BATON_RABBITMQ_ADDRESSES").hasMessageContaining("'mq-0:port' is not host:port");
  }

  @Test
  void authIsTheRuntimesOwnTokensUnlessKubernetesIsAskedFor() {
    assertThat(RuntimeSettings.fromEnvironment(Map.of()).auth()).isEqualTo(AuthMode.TOKEN);
    RuntimeSettings kubernetes = RuntimeSettings.fromEnvironment(Map.of("BATON_AUTH", " Kubernetes ",
        "BATON_HTTP_TRUSTED_PROXY", "true"));
    assertThat(kubernetes.auth()).isEqualTo(AuthMode.KUBERNETES);
    assertThat(kubernetes.trustedProxy()).isTrue();
    assertThat(kubernetes.toString()).contains("auth=kubernetes").doesNotContain("apiToken");
    assertThat(RuntimeSettings.fromEnvironment(Map.of("BATON_AUTH", "token", "BATON_API_TOKEN", "t0ken")).toString())
        .contains("auth=token, apiToken=(set)").doesNotContain("t0ken");
  }

  @Test
  void aBadAuthModeOrKubernetesWithStaticTokensStopsTheStart() {
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_AUTH", "oidc")))
        .hasMessage("BATON_AUTH: expected one of token, kubernetes, got 'oidc'");
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_AUTH", "kubernetes",
        "BATON_API_TOKEN", "s3cret-token")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("BATON_AUTH: BATON_AUTH=kubernetes checks Kubernetes tokens")
        .hasMessageContaining("unset them").hasMessageNotContaining("s3cret-token");
    assertThatThrownBy(() -> RuntimeSettings.localDefaults().toBuilder().auth(AuthMode.KUBERNETES)
        .apiReadToken("read").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("BATON_API_READ_TOKEN");
  }

  @Test
  void aBadValueNamesItsVariable() {
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_HTTP_PORT", "eighty")))
        .hasMessage("BATON_HTTP_PORT: expected a whole number from 0 to 65535, got 'eighty'");
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_RETENTION", "7d")))
        .hasMessageContaining("BATON_RETENTION").hasMessageContaining("duration");
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of("BATON_PREFETCH", "0")))
        .hasMessage("BATON_PREFETCH: expected a whole number from 1 to 65535, got '0'");
  }

  @Test
  void everyBadVariableIsNamedAtOnceAndNoPasswordIsShown() {
    assertThatThrownBy(() -> RuntimeSettings.fromEnvironment(Map.of(
        "BATON_OUTBOX_POLL_INTERVAL", "abc",
        "BATON_REQUIRE_READY", "maybe",
        "BATON_RABBITMQ_URI", "http://rt:hidden@mq:5672/",
        "BATON_CONSUMER_THREADS", "0")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage("BATON_RABBITMQ_URI: expected a URI with scheme amqp or amqps and a host, got "
            + "'http://rt:***@mq:5672/'; "
            + "BATON_CONSUMER_THREADS: expected a whole number of at least 1, got '0'; "
            + "BATON_OUTBOX_POLL_INTERVAL: expected a duration such as 30s, got 'abc'; "
            + "BATON_REQUIRE_READY: expected true or false (or yes/no, 1/0), got 'maybe'");
  }

  @Test
  void credentialsUseTheSameNamesAsTheBrokersAndMayComeFromFiles(@TempDir Path dir) throws Exception {
    Path password = Files.writeString(dir.resolve("password"), "db-s3cret\n");
    RuntimeSettings s = RuntimeSettings.fromEnvironment(Map.of(
        "BATON_DATABASE_USERNAME", "baton_rt",
        "BATON_DATABASE_PASSWORD_FILE", password.toString(),
        "BATON_RABBITMQ_USERNAME", "baton-orchestrator",
        "BATON_RABBITMQ_PASSWORD", "mq-s3cret"));
    assertThat(s.databaseUsername()).isEqualTo("baton_rt");
    assertThat(s.databasePassword()).isEqualTo("db-s3cret");
    assertThat(s.amqpUsername()).isEqualTo("baton-orchestrator");
    assertThat(s.amqpPassword()).isEqualTo("mq-s3cret");
  }
}
