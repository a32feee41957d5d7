package dev.baton.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.settings.InvalidSettingsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
  void reconcileThreadsDefaultToManyAndAreBounded() {
    assertThat(OperatorSettings.fromEnvironment(Map.of()).reconcileThreads()).isEqualTo(150);
    assertThat(OperatorSettings.fromEnvironment(Map.of("BATON_RECONCILE_THREADS", "40")).reconcileThreads())
        .isEqualTo(40);
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("BATON_RECONCILE_THREADS", "0")))
        .isInstanceOf(InvalidSettingsException.class).hasMessageContaining("BATON_RECONCILE_THREADS");
  }

  @Test
  void theOperatorDeclaresOverAmqpWhereTheWorkersConnectUnlessToldOtherwise() {
    assertThat(OperatorSettings.fromEnvironment(Map.of()).declarationUrl()).isEqualTo("amqp://127.0.0.1:5672");
    assertThat(OperatorSettings.fromEnvironment(Map.of("BATON_RABBITMQ_HOST", "rabbitmq.rabbitmq.svc",
        "BATON_RABBITMQ_PORT", "5671", "BATON_RABBITMQ_TLS", "true")).declarationUrl())
        .isEqualTo("amqps://rabbitmq.rabbitmq.svc:5671");
    assertThat(OperatorSettings.fromEnvironment(Map.of("BATON_RABBITMQ_HOST", "rabbitmq.example.com",
        "BATON_OPERATOR_AMQP_URL", "amqp://rabbitmq.rabbitmq.svc:5672")).declarationUrl())
        .isEqualTo("amqp://rabbitmq.rabbitmq.svc:5672");
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("BATON_OPERATOR_AMQP_URL", "http://x:5672")))
        .hasMessageContaining("BATON_OPERATOR_AMQP_URL");
  }

  @Test
  void tenancyIsClosedUnlessTheOpeningFlagIsSet() {
    assertThat(OperatorSettings.fromEnvironment(Map.of()).tenancy().isOpen()).isFalse();
    assertThat(OperatorSettings.localDefaults().tenancy().isOpen()).as("baton dev too").isFalse();
    OperatorSettings open = OperatorSettings.fromEnvironment(Map.of("BATON_TENANCY_OPEN", "true",
        "BATON_TENANCY", "shop=cart"));
    assertThat(open.tenancy().isOpen()).isTrue();
    assertThat(open.tenancy().mayClaim("shop", "payment")).as("claim rules still apply").isFalse();
    assertThat(open.toString()).contains("tenancy=open, claim rules");
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("BATON_TENANCY_OPEN", "everything")))
        .hasMessageContaining("BATON_TENANCY_OPEN: expected true or false");
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
  void localDefaultsKeepEverythingNewOff() {
    OperatorSettings s = OperatorSettings.localDefaults().withRuntimeUrl("http://runtime");
    assertThat(s.httpPort()).isZero();
    assertThat(s.leaderElection()).isFalse();
    assertThat(s.withVhost("v").runtimeUrl()).isEqualTo("http://runtime");
  }

  @Test
  void leaderElectionReadsYesAsTrueAndRefusesMaybe() {
    assertThat(OperatorSettings.fromEnvironment(Map.of("BATON_LEADER_ELECTION", "yes")).leaderElection()).isTrue();
    assertThat(OperatorSettings.fromEnvironment(Map.of("BATON_LEADER_ELECTION", "No")).leaderElection()).isFalse();
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of("BATON_LEADER_ELECTION", "maybe")))
        .hasMessage("BATON_LEADER_ELECTION: expected true or false (or yes/no, 1/0), got 'maybe'");
  }

  @Test
  void everyBadVariableIsNamedAtOnce() {
    assertThatThrownBy(() -> OperatorSettings.fromEnvironment(Map.of(
        "BATON_RABBITMQ_PORT", "amqp",
        "BATON_RESYNC", "1 minute",
        "BATON_RUNTIME_CREDENTIALS_SECRET", "just-a-name",
        "BATON_OPERATOR_HTTP_PORT", "99999",
        "BATON_SERVER_SIDE_APPLY", "sometimes")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage("BATON_RABBITMQ_PORT: expected a whole number from 1 to 65535, got 'amqp'; "
            + "BATON_RESYNC: expected a duration such as 30s, got '1 minute'; "
            + "BATON_SERVER_SIDE_APPLY: expected true or false (or yes/no, 1/0), got 'sometimes'; "
            + "BATON_RUNTIME_CREDENTIALS_SECRET: expected namespace/name such as baton-system/baton-runtime-broker, "
            + "got 'just-a-name'; "
            + "BATON_OPERATOR_HTTP_PORT: expected a whole number from 0 to 65535, got '99999'");
  }

  @Test
  void theRuntimeTokenMayComeFromAFile(@TempDir Path dir) throws Exception {
    Path token = Files.writeString(dir.resolve("token"), "t0ken\n");
    assertThat(OperatorSettings.fromEnvironment(Map.of("BATON_RUNTIME_TOKEN_FILE", token.toString())).runtimeToken())
        .isEqualTo("t0ken");
  }
}
