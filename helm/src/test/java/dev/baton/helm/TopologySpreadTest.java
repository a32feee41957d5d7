package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * topologySpreadConstraints of both components: a constraint without a labelSelector counts the component's own pods
 * (its selector labels), as the README's example over zones and nodes relies on; one with a labelSelector is kept as
 * written.
 */
class TopologySpreadTest {

  /** The README's example: replicas over zones, and over nodes within them, by the pods' own labels. */
  private static final List<Map<String, Object>> ZONES_AND_NODES = List.of(
      Map.of("maxSkew", 1, "topologyKey", "topology.kubernetes.io/zone", "whenUnsatisfiable", "ScheduleAnyway"),
      Map.of("maxSkew", 1, "topologyKey", "kubernetes.io/hostname", "whenUnsatisfiable", "ScheduleAnyway"));

  @Test
  void aConstraintWithoutASelectorCountsTheComponentsPods() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS, Map.of("runtime.topologySpreadConstraints", ZONES_AND_NODES,
        "operator.topologySpreadConstraints", ZONES_AND_NODES.subList(1, 2)));

    for (Deployment d : List.of(chart.runtime(), chart.operator())) {
      List<TopologySpreadConstraint> constraints = d.getSpec().getTemplate().getSpec().getTopologySpreadConstraints();
      assertThat(constraints).hasSize(d == chart.runtime() ? 2 : 1).allSatisfy(c -> {
        assertThat(c.getLabelSelector().getMatchLabels()).as("%s", d.getMetadata().getName())
            .isEqualTo(d.getSpec().getSelector().getMatchLabels());
        assertThat(c.getMaxSkew()).isEqualTo(1);
        assertThat(c.getWhenUnsatisfiable()).isEqualTo("ScheduleAnyway");
      });
    }
    assertThat(chart.runtime().getSpec().getTemplate().getSpec().getTopologySpreadConstraints())
        .extracting(TopologySpreadConstraint::getTopologyKey)
        .containsExactly("topology.kubernetes.io/zone", "kubernetes.io/hostname");
  }

  @Test
  void aConstraintsOwnSelectorIsKept() {
    Deployment runtime = Chart.template(ValueSet.REPLICAS_AND_IMAGES).runtime();

    assertThat(runtime.getSpec().getTemplate().getSpec().getTopologySpreadConstraints()).singleElement()
        .satisfies(c -> assertThat(c.getLabelSelector().getMatchLabels())
            .containsExactlyEntriesOf(Map.of("app.kubernetes.io/component", "runtime")));
    assertThat(Chart.template(ValueSet.DEFAULTS).operator().getSpec().getTemplate().getSpec()
        .getTopologySpreadConstraints()).as("none by default").isNullOrEmpty();
  }
}
