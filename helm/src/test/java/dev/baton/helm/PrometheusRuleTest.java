package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The optional PrometheusRule: the alerts of docs/operations.md, each on metrics the runtime or the operator really
 * exports (a renamed meter fails here, not as an alert that never fires), with the thresholds of the values.
 */
class PrometheusRuleTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void onlyWhenAsked() {
    assertThat(Chart.template(ValueSet.DEFAULTS).generic("PrometheusRule")).isEmpty();
  }

  /**
   * Every alert has its runbook in docs/operations.md: a {@code ### <alert>} section under {@code ## Alerts}, which
   * says what the alert means and what to check first; and no section is left for an alert the chart no longer has.
   */
  @Test
  void everyAlertHasARunbookSection() throws IOException {
    JsonNode rules = JSON.valueToTree(Chart.template(ValueSet.DEFAULTS, Map.of("metrics.prometheusRule.enabled", true))
        .generic("PrometheusRule").get(0).getAdditionalProperties()).at("/spec/groups");
    Set<String> alerts = new TreeSet<>();
    rules.forEach(g -> g.path("rules").forEach(r -> alerts.add(r.path("alert").asText())));
    assertThat(alerts).hasSizeGreaterThan(5);

    String operations = Files.readString(Chart.repoRoot().resolve("docs/operations.md"));
    Matcher section = Pattern.compile("(?ms)^## Alerts\\R(.*?)(?=^## )").matcher(operations);
    assertThat(section.find()).as("docs/operations.md has a section '## Alerts'").isTrue();
    Map<String, String> runbooks = new TreeMap<>();
    Matcher heading = Pattern.compile("(?m)^### (\\S+)\\R((?:(?!^#).*\\R?)*)").matcher(section.group(1));
    while (heading.find()) {
      runbooks.put(heading.group(1), heading.group(2).strip());
    }
    assertThat(runbooks.keySet()).as("the runbooks (### sections) under '## Alerts' in docs/operations.md")
        .containsExactlyInAnyOrderElementsOf(alerts);
    runbooks.forEach((alert, text) -> assertThat(text).as("runbook of %s", alert).hasSizeGreaterThan(80));
  }

  @Test
  void everyAlertQueriesExportedMetrics() {
    GenericKubernetesResource rule = Chart.template(ValueSet.DEFAULTS, Map.of("metrics.prometheusRule.enabled", true,
        "metrics.prometheusRule.labels", Map.of("release", "prometheus"), "metrics.prometheusRule.outboxLagSeconds", 120,
        "metrics.prometheusRule.namespace", "monitoring")).generic("PrometheusRule").get(0);
    assertThat(rule.getMetadata().getNamespace()).isEqualTo("monitoring");
    assertThat(rule.getMetadata().getLabels()).containsEntry("release", "prometheus");

    JsonNode rules = JSON.valueToTree(rule.getAdditionalProperties()).at("/spec/groups/0/rules");
    List<String> alerts = new ArrayList<>();
    String exported = ExportedMetrics.scrape();
    for (JsonNode r : rules) {
      String alert = r.path("alert").asText();
      alerts.add(alert);
      assertThat(r.path("annotations").path("description").asText()).as(alert).isNotBlank();
      String expr = r.path("expr").asText();
      assertThat(ExportedMetrics.NAME.matcher(expr).find()).as("metrics in %s", alert).isTrue();
      assertThat(ExportedMetrics.problems(expr, exported)).as("the metrics and labels %s queries", alert).isEmpty();
    }
    assertThat(alerts).containsExactly("BatonDeadLettersGrowing", "BatonDeadLettersWaiting", "BatonInstancesStuck",
        "BatonInstanceStuckAtStep", "BatonStepsTimingOut", "BatonOutboxLag", "BatonDependencyUnreachable",
        "BatonReconcileErrors");
    assertThat(rules.get(alerts.indexOf("BatonOutboxLag")).path("expr").asText()).endsWith("> 120");
  }
}
