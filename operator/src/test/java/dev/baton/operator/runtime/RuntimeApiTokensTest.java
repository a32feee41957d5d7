package dev.baton.operator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.sandbox.MockKubernetes;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runtime's API token Secret the operator keeps in token mode (the fabric8 mock API server, CRUD mode): made once
 * with random tokens, never changed afterwards, so that neither a restart nor an upgrade from a chart-made Secret
 * changes a token clients hold.
 */
class RuntimeApiTokensTest {

  private static final String NS = "baton-system";
  private static final String NAME = "baton-runtime-api";

  private final MockKubernetes kubernetes = MockKubernetes.start(List.of());
  private final KubernetesClient client = kubernetes.client();

  @AfterEach
  void stop() {
    kubernetes.close();
  }

  @Test
  void aMissingSecretIsCreatedWithRandomTokensAndTheFullOneIsReturned() {
    String token = new RuntimeApiTokens(NS, NAME, "token", "read").ensure(client);

    Map<String, String> tokens = tokens();
    assertThat(tokens).containsOnlyKeys("token", "read").containsEntry("token", token);
    assertThat(token).matches("[A-Za-z0-9]{64}");
    assertThat(tokens.get("read")).matches("[A-Za-z0-9]{64}").isNotEqualTo(token);
    assertThat(secret().getMetadata().getLabels()).containsEntry("app.kubernetes.io/component", "api-tokens");
  }

  @Test
  void aSecondStartKeepsTheTokens() {
    RuntimeApiTokens tokens = new RuntimeApiTokens(NS, NAME, "token", "read");
    String first = tokens.ensure(client);
    Map<String, String> made = tokens();

    assertThat(tokens.ensure(client)).isEqualTo(first);
    assertThat(tokens()).isEqualTo(made);
  }

  @Test
  void anUpgradeKeepsTheTokenOfTheSecretAnEarlierChartMadeAndAddsOnlyAMissingReadOnlyOne() {
    client.resource(new SecretBuilder().withNewMetadata().withName(NAME).withNamespace(NS).endMetadata()
        .addToData("token", base64("Kept0123456789Kept0123456789Kept01234567"))
        .addToData("other", base64("someone else's")).build()).create();

    String token = new RuntimeApiTokens(NS, NAME, "token", "read").ensure(client);

    assertThat(token).isEqualTo("Kept0123456789Kept0123456789Kept01234567");
    assertThat(tokens()).containsEntry("token", token).containsEntry("other", "someone else's")
        .hasEntrySatisfying("read", read -> assertThat(read).matches("[A-Za-z0-9]{64}"));
  }

  @Test
  void theSecretIsNamedAsNamespaceSlashName() {
    assertThat(RuntimeApiTokens.parse("baton-system/baton-runtime-api", "token", ""))
        .isEqualTo(new RuntimeApiTokens(NS, NAME, "token", null));
    assertThatThrownBy(() -> RuntimeApiTokens.parse("baton-runtime-api", "token", null))
        .hasMessageContaining("namespace/name");
    assertThatThrownBy(() -> RuntimeApiTokens.parse("a/b", "token", "token"))
        .hasMessageContaining("must differ");
  }

  private Secret secret() {
    return client.secrets().inNamespace(NS).withName(NAME).get();
  }

  private Map<String, String> tokens() {
    return secret().getData().entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey,
        e -> new String(Base64.getDecoder().decode(e.getValue()), StandardCharsets.UTF_8)));
  }

  private static String base64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}
