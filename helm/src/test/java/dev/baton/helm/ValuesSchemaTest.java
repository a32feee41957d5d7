package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * values.schema.json: it covers every value of values.yaml, and a value of the wrong type (or an unknown key, or a
 * value outside an enum) makes {@code helm lint --strict} and {@code helm template} (hence install and upgrade) fail.
 */
class ValuesSchemaTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void theSchemaDescribesEveryValue() throws IOException {
    JsonNode schema = JSON.readTree(Files.readString(Chart.dir().resolve("values.schema.json")));
    Set<String> missing = new TreeSet<>();
    covered(YAML.readTree(Chart.dir().resolve("values.yaml").toFile()), schema, "", missing);
    assertThat(missing).as("values without a schema").isEmpty();
  }

  private static void covered(JsonNode value, JsonNode schema, String path, Set<String> missing) {
    if (schema.isMissingNode()) {
      missing.add(path);
      return;
    }
    if (value.isObject() && schema.has("properties")) {
      value.fields().forEachRemaining(e -> covered(e.getValue(), schema.path("properties").path(e.getKey()),
          path.isEmpty() ? e.getKey() : path + "." + e.getKey(), missing));
    }
    if (!schema.has("type")) {
      missing.add(path + " (no type)");
    }
  }

  @ParameterizedTest(name = "{0}: {1}")
  @CsvSource(delimiter = '|', value = {
    "operator.replicas                  | two",
    "runtime.enabled                    | yes",
    "operator.logFormat                 | xml",
    "runtime.image.pullPolicy           | Sometimes",
    "operator.resync                    | a minute",
    "rabbitmq.port                      | 70000",
    "metrics.prometheusRule.enabled     | on",
    "operator.replica                   | 2",
    "operator.tenancy                   | shop: cart",
    "operator.tenancyOpen               | everything",
    "runtime.auth.mode                  | oidc",
    "runtime.auth.audiences             | baton",
    "runtime.auth.trustedProxy          | yes",
    "runtime.ingress.pathType           | Regex",
    "runtime.ingress.path               | baton",
    "runtime.httpRoute.path             | /baton/",
    "metrics.podMonitor.enabled         | on",
    "runtime.database.caSecret          | 5",
    "operator.topologySpreadConstraints | zone",
    "otel.protocol                      | http/json",
    "otel.propagators                   | w3c",
    "otel.endpoint                      | collector:4317",
  })
  void aWrongValueFailsLintAndTemplate(String key, String value, @TempDir Path scratch) {
    Object typed = value.matches("\\d+") ? (Object) Integer.parseInt(value) : value;
    LintResult lint = Chart.lint(Map.of(key, typed), scratch);
    assertThat(lint.isFailed()).as("helm lint --strict with %s=%s: %s", key, value, lint.getMessages()).isTrue();
    assertThat(String.join("\n", lint.getMessages())).contains("schema");

    assertThatThrownBy(() -> Chart.template(ValueSet.DEFAULTS, Map.of(key, typed)))
        .as("helm template with %s=%s", key, value).hasMessageContaining("schema");
  }

  /** Audiences go to the runtime joined with commas: none may be empty or hold a comma or a space. */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"''", "baton,api", "'baton '"})
  void anAudienceTheRuntimeWouldReadOtherwiseIsRefused(String audience, @TempDir Path scratch) {
    Map<String, Object> values = Map.of("runtime.auth.audiences", List.of("baton", audience));
    assertThat(Chart.lint(values, scratch).isFailed()).as("helm lint --strict with audience '%s'", audience).isTrue();
    assertThatThrownBy(() -> Chart.template(ValueSet.DEFAULTS, values)).hasMessageContaining("schema");
  }

  @Test
  void rightValuesPass(@TempDir Path scratch) {
    LintResult lint = Chart.lint(Map.ofEntries(Map.entry("operator.replicas", 2),
        Map.entry("runtime.logFormat", "json"), Map.entry("metrics.prometheusRule.enabled", true),
        Map.entry("networkPolicy.enabled", true), Map.entry("operator.tenancy", "shop=order-*,cart; payments=payment"),
        Map.entry("operator.tenancyOpen", true), Map.entry("runtime.auth.mode", "token"),
        Map.entry("runtime.auth.audiences", List.of("baton", "https://baton.example.com")),
        Map.entry("runtime.auth.trustedProxy", true), Map.entry("metrics.podMonitor.enabled", true),
        Map.entry("runtime.database.caSecret", "baton-db-ca"), Map.entry("rabbitmq.tls.caSecret", "broker-ca"),
        Map.entry("runtime.ingress.enabled", true), Map.entry("runtime.ingress.hosts", List.of("baton.example.com")),
        Map.entry("runtime.httpRoute.enabled", true), Map.entry("runtime.httpRoute.path", "/baton"),
        Map.entry("runtime.httpRoute.parentRefs", List.of(Map.of("name", "public"))),
        Map.entry("operator.topologySpreadConstraints", List.of(Map.of("maxSkew", 1,
            "topologyKey", "kubernetes.io/hostname", "whenUnsatisfiable", "ScheduleAnyway")))), scratch);
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
  }

  @Test
  void theChartNeedsKubernetes127() throws IOException {
    JsonNode chart = YAML.readTree(Chart.dir().resolve("Chart.yaml").toFile());
    assertThat(chart.path("kubeVersion").asText()).isEqualTo(Chart.KUBE_VERSION);
    // helm-java renders for Kubernetes v1.20.0 (see Chart.copyChart): the chart as it is refuses it.
    assertThatThrownBy(() -> new Helm(Chart.dir()).template().withName(Chart.RELEASE).call())
        .hasMessageContaining("chart requires kubeVersion: >=1.27.0-0 which is incompatible with Kubernetes v1.20.0");
  }
}
