package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The optional NetworkPolicies: who may reach the runtime's and the operator's HTTP ports. */
class NetworkPolicyTest {

  private static final Map<String, Object> PROMETHEUS =
      Map.of("namespaceSelector", Map.of("matchLabels", Map.of("kubernetes.io/metadata.name", "monitoring")));

  @Test
  void onlyWhenAsked() {
    assertThat(Chart.template(ValueSet.DEFAULTS).all(NetworkPolicy.class)).isEmpty();
  }

  @Test
  void theRuntimeAdmitsTheOperatorItsClientsAndPrometheus() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("networkPolicy.enabled", true,
        "networkPolicy.clients", List.of(Map.of("podSelector", Map.of("matchLabels", Map.of("app", "orders")))),
        "networkPolicy.metricsClients", List.of(PROMETHEUS)));
    NetworkPolicy runtime = chart.get(NetworkPolicy.class, Chart.RELEASE + "-runtime");
    assertThat(runtime.getSpec().getPodSelector().getMatchLabels())
        .containsEntry("app.kubernetes.io/component", "runtime");
    assertThat(runtime.getSpec().getPolicyTypes()).containsExactly("Ingress");
    List<NetworkPolicyPeer> from = runtime.getSpec().getIngress().get(0).getFrom();
    assertThat(from).hasSize(3);
    assertThat(from.get(0).getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/component", "operator");
    assertThat(from.get(1).getPodSelector().getMatchLabels()).containsEntry("app", "orders");
    assertThat(from.get(2).getNamespaceSelector().getMatchLabels())
        .containsEntry("kubernetes.io/metadata.name", "monitoring");
    assertThat(runtime.getSpec().getIngress().get(0).getPorts().get(0).getPort().getStrVal()).isEqualTo("http");

    NetworkPolicy operator = chart.get(NetworkPolicy.class, Chart.RELEASE + "-operator");
    assertThat(operator.getSpec().getIngress()).singleElement()
        .satisfies(rule -> assertThat(rule.getFrom()).singleElement()
            .satisfies(p -> assertThat(p.getNamespaceSelector()).isNotNull()));
  }

  @Test
  void withoutMetricsClientsTheOperatorAdmitsNobody() {
    NetworkPolicy operator = Chart.template(ValueSet.OPERATOR_ONLY, Map.of("networkPolicy.enabled", true))
        .get(NetworkPolicy.class, Chart.RELEASE + "-operator");
    assertThat(operator.getSpec().getIngress()).isEmpty();
    assertThat(operator.getSpec().getPolicyTypes()).containsExactly("Ingress");
  }
}
