package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard parses, every panel has queries, every metric of the runtime or the operator it queries is one
 * they really export, with the labels it uses (so a renamed meter or label fails here, not on a blank panel), and the
 * chart ships it only when asked.
 */
class GrafanaDashboardTest {

  @Test
  void everyBatonMetricTheDashboardQueriesIsExported() throws IOException {
    JsonNode dashboard = dashboard();
    List<String> queries = new ArrayList<>();
    Set<Integer> ids = new HashSet<>();
    for (JsonNode panel : dashboard.get("panels")) {
      assertThat(ids.add(panel.get("id").asInt())).as("panel ids are unique").isTrue();
      if (panel.get("type").asText().equals("row")) {
        continue;
      }
      assertThat(panel.get("targets")).as("queries of panel '%s'", panel.get("title").asText()).isNotEmpty();
      panel.get("targets").forEach(t -> queries.add(t.get("expr").asText()));
    }
    // The variables' queries (label_values(metric, label)) too: a renamed metric would empty the drop-down.
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      if (variable.path("type").asText().equals("query")) {
        queries.add(variable.path("definition").asText());
      }
    }
    Set<String> queried = new TreeSet<>();
    for (String q : queries) {
      Matcher m = ExportedMetrics.NAME.matcher(q);
      while (m.find()) {
        queried.add(m.group(1));
      }
    }
    assertThat(queried).contains("baton_events_processed_total", "baton_step_latency_seconds_bucket", "baton_instances",
        "baton_dead_letters", "baton_steps_running", "baton_step_oldest_seconds");
    // The processes beside the workflows: JVM heap and GC, the connection pool, the HTTP server, the broker client.
    assertThat(queried).contains("jvm_memory_used_bytes", "jvm_gc_pause_seconds_sum", "hikaricp_connections_active",
        "hikaricp_connections_pending", "http_server_requests_seconds_count", "rabbitmq_client_published_total",
        "rabbitmq_client_consumed_total", "rabbitmq_client_acknowledged_total");
    // Latency per step, not only all steps together; and where instances wait, per step.
    assertThat(queries).anyMatch(q -> q.matches(
        "histogram_quantile\\(.*sum by \\(le, (?:workflow_namespace, workflow, )?step\\) "
            + "\\(rate\\(baton_step_latency_seconds_bucket\\{.*"));
    assertThat(queries).anyMatch(q -> q.matches(
        ".* by \\((?:workflow_namespace, workflow, )?step\\) \\(baton_steps_running\\{.*"));

    String exported = ExportedMetrics.scrape();
    for (String q : queries) {
      assertThat(ExportedMetrics.problems(q, exported)).as("the metrics and labels of %s", q).isEmpty();
    }
  }

  @Test
  void theChartShipsTheDashboardOnlyWhenAsked() throws IOException {
    assertThat(Chart.template(ValueSet.DEFAULTS).all(ConfigMap.class)).isEmpty();
    ConfigMap cm = Chart.template(ValueSet.SERVICE_MONITOR).get(ConfigMap.class, Chart.RELEASE + "-grafana-dashboard");
    assertThat(cm.getMetadata().getNamespace()).isEqualTo("monitoring");
    assertThat(cm.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    assertThat(new ObjectMapper().readTree(cm.getData().get("baton.json"))).isEqualTo(dashboard());
  }

  private static JsonNode dashboard() throws IOException {
    return new ObjectMapper().readTree(Files.readString(Chart.dir().resolve("dashboards/baton.json")));
  }
}
