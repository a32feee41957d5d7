package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.contract.EventResult;
import dev.baton.operator.monitoring.OperatorMetrics;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.InstanceStore.StatusCount;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard parses, every panel has queries, every Baton metric it queries is one the runtime or the
 * operator really exports (so a renamed meter fails here, not on a blank panel), and the chart ships it only when
 * asked.
 */
class GrafanaDashboardTest {

  private static final Pattern BATON_METRIC = Pattern.compile("\\b(baton_[a-z_]+)\\b");

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
    Set<String> queried = new TreeSet<>();
    for (String q : queries) {
      Matcher m = BATON_METRIC.matcher(q);
      while (m.find()) {
        queried.add(m.group(1));
      }
    }
    assertThat(queried).contains("baton_events_processed_total", "baton_step_latency_seconds_bucket", "baton_instances",
        "baton_dead_letters");

    String exported = exercisedRuntimeMetrics().scrape() + exercisedOperatorMetrics().scrape();
    for (String metric : queried) {
      assertThat(exported).as("metric %s is exported by the runtime or the operator", metric)
          .containsPattern("(?m)^" + metric + "[{ ]");
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

  /** Every meter appears in a scrape only once it has a value: touch them all. */
  private static RuntimeMetrics exercisedRuntimeMetrics() {
    RuntimeMetrics m = new RuntimeMetrics();
    m.eventApplied("w", EventResult.SUCCESS, 12);
    m.duplicateIgnored("w");
    m.staleIgnored("w");
    m.foreignIgnored("w");
    m.parked("w", RuntimeMetrics.ParkReason.values()[0]);
    m.instanceStarted("w");
    m.stepTimedOut("w");
    m.outboxPublished(1);
    m.outboxUnroutable("x.command.topic.ex", 1);
    m.instanceCounts(List.of(new StatusCount("default", "w", "RUNNING", 1)));
    m.outboxBacklog(1, 0.5);
    return m;
  }

  private static OperatorMetrics exercisedOperatorMetrics() {
    OperatorMetrics m = new OperatorMetrics();
    m.deadLetters("payment", "q.dlx.payment.pay", 1);
    return m;
  }
}
