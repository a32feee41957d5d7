package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * PodMonitors (metrics.podMonitor), the alternative to ServiceMonitors for a Prometheus that selects only those: the same
 * scrapes of the same pods, and on both kinds the target's labels win (no honorLabels): `namespace` is the scraped
 * pod's, a Workflow's namespace is the metrics' own `workflow_namespace`.
 */
class PodMonitorTest {

  /** The SERVICE_MONITOR value set with PodMonitors in place of its ServiceMonitors. */
  private static Rendered podMonitors() {
    return Chart.template(ValueSet.SERVICE_MONITOR, Map.of("metrics.serviceMonitor.enabled", false,
        "metrics.podMonitor.enabled", true, "metrics.podMonitor.namespace", "monitoring",
        "metrics.podMonitor.labels", Map.of("release", "prometheus"), "metrics.podMonitor.interval", "15s"));
  }

  @Test
  void podMonitorsScrapeThePodsOfBothComponents() {
    Rendered chart = podMonitors();

    assertThat(chart.ofKind("ServiceMonitor")).isEmpty();
    List<JsonNode> monitors = chart.trees("PodMonitor");
    assertThat(monitors).extracting(m -> m.at("/metadata/name").asText())
        .containsExactlyInAnyOrder("baton-runtime", "baton-operator");
    for (JsonNode monitor : monitors) {
      assertThat(monitor.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
      assertThat(monitor.at("/metadata/namespace").asText()).isEqualTo("monitoring");
      assertThat(monitor.at("/metadata/labels/release").asText()).isEqualTo("prometheus");
      assertThat(monitor.at("/spec/namespaceSelector/matchNames/0").asText()).isEqualTo(Chart.NAMESPACE);
      Deployment target = chart.get(Deployment.class, monitor.at("/metadata/name").asText());
      Map<String, String> podLabels = target.getSpec().getTemplate().getMetadata().getLabels();
      monitor.at("/spec/selector/matchLabels").fields().forEachRemaining(label ->
          assertThat(podLabels).as("pods of %s", target.getMetadata().getName())
              .containsEntry(label.getKey(), label.getValue().asText()));
      assertThat(monitor.at("/spec/podMetricsEndpoints")).singleElement().satisfies(endpoint -> {
        assertThat(endpoint.path("port").asText()).as("the containers' port name").isEqualTo("http");
        assertThat(endpoint.path("path").asText()).isEqualTo("/metrics");
        assertThat(endpoint.path("interval").asText()).isEqualTo("15s");
        assertThat(endpoint.path("honorLabels").asBoolean()).isFalse();
      });
    }
    // As with ServiceMonitors: the runtime's /metrics wants the read-only token in token mode, the operator's none.
    assertThat(endpoint(chart, "baton-runtime").at("/bearerTokenSecret/key").asText()).isEqualTo("read-token");
    assertThat(endpoint(chart, "baton-operator").has("bearerTokenSecret")).isFalse();
  }

  @Test
  void serviceMonitorsHonourTheTargetsLabelsToo() {
    for (JsonNode monitor : Chart.template(ValueSet.SERVICE_MONITOR).trees("ServiceMonitor")) {
      assertThat(monitor.at("/spec/endpoints/0/honorLabels").asBoolean()).isFalse();
    }
  }

  @Test
  void bothKindsAtOnceAreRefused() {
    assertThatThrownBy(() -> Chart.template(ValueSet.SERVICE_MONITOR, Map.of("metrics.podMonitor.enabled", true)))
        .hasMessageContaining("choose one");
  }

  private static JsonNode endpoint(Rendered chart, String name) {
    return chart.trees("PodMonitor").stream().filter(m -> m.at("/metadata/name").asText().equals(name)).findFirst()
        .orElseThrow().at("/spec/podMetricsEndpoints/0");
  }
}
