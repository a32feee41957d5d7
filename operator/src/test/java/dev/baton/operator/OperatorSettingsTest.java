package dev.baton.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OperatorSettingsTest {

  @Test
  void defaultsOfAClusterProcess() {
    OperatorSettings s = OperatorSettings.fromEnvironment(Map.of());
    assertThat(s.countsInterval()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.httpPort()).isEqualTo(8081);
    assertThat(s.leaderElection()).isFalse();
    assertThat(s.runtimeCredentialsSecret()).isNull();
    assertThat(s.namespaces()).isEmpty();
  }

  @Test
  void everySettingFromTheEnvironment() {
    OperatorSettings s = OperatorSettings.fromEnvironment(Map.ofEntries(
        Map.entry("BATON_RUNTIME_URL", "http://baton-runtime:8080"),
        Map.entry("BATON_COUNTS_INTERVAL", "30s"),
        Map.entry("BATON_RUNTIME_TOKEN", "t0ken"),
        Map.entry("BATON_RUNTIME_CREDENTIALS_SECRET", "baton-system/baton-runtime-broker"),
        Map.entry("BATON_OPERATOR_HTTP_PORT", "9090"),
        Map.entry("BATON_LEADER_ELECTION", "true"),
        Map.entry("BATON_LEADER_ELECTION_NAMESPACE", "baton-system"),
        Map.entry("BATON_NAMESPACES", "shop, billing ,")));
    assertThat(s.countsInterval()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.runtimeCredentialsNamespace()).isEqualTo("baton-system");
    assertThat(s.runtimeCredentialsName()).isEqualTo("baton-runtime-broker");
    assertThat(s.httpPort()).isEqualTo(9090);
    assertThat(s.leaderElection()).isTrue();
    assertThat(s.leaseNamespace()).isEqualTo("baton-system");
    assertThat(s.leaseName()).isEqualTo("baton-operator");
    assertThat(s.namespaces()).isEqualTo(Set.of("shop", "billing"));
    assertThat(s.toString()).doesNotContain("t0ken").contains("runtimeToken=(set)");
  }

  @Test
  void theChartsHttpVariablesWorkToo() {
    OperatorSettings s = OperatorSettings.fromEnvironment(Map.of("BATON_HTTP_HOST", "0.0.0.0", "BATON_HTTP_PORT", "8088"));
    assertThat(s.httpPort()).isEqualTo(8088);
    assertThat(OperatorSettings.fromEnvironment(Map.of("BATON_OPERATOR_HTTP_PORT", "0")).httpPort()).isZero();
  }

  @Test
  void theRuntimeSecretMustBeNamespaceSlashName() {
    OperatorSettings s = OperatorSettings.localDefaults().toBuilder().runtimeCredentialsSecret("just-a-name").build();
    assertThatThrownBy(s::runtimeCredentialsName).hasMessageContaining("namespace/name");
  }

  @Test
  void theFirstConstructorKeepsEverythingNewOff() {
    OperatorSettings s = new OperatorSettings("http://x/api/", "u", "p", "h", 5672, "/", "baton-",
        Duration.ofSeconds(60), false, "http://runtime");
    assertThat(s.httpPort()).isZero();
    assertThat(s.leaderElection()).isFalse();
    assertThat(s.withVhost("v").runtimeUrl()).isEqualTo("http://runtime");
  }
}
