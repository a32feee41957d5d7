package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ClusterRoles that add Baton's kinds to Kubernetes' built-in admin, edit and view roles (by aggregation labels):
 * edit may write the three kinds but never their status, view reads both; nobody is bound to them by the chart.
 */
class AggregatedRolesTest {

  private static final List<String> KINDS = List.of("workflows", "workerservices", "retrypolicies");

  @Test
  void editAndViewJoinTheBuiltInRoles() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);
    ClusterRole edit = chart.get(ClusterRole.class, Chart.RELEASE + "-edit");
    ClusterRole view = chart.get(ClusterRole.class, Chart.RELEASE + "-view");

    assertThat(edit.getMetadata().getLabels()).containsEntry("rbac.authorization.k8s.io/aggregate-to-edit", "true")
        .containsEntry("rbac.authorization.k8s.io/aggregate-to-admin", "true")
        .doesNotContainKey("rbac.authorization.k8s.io/aggregate-to-view");
    assertThat(view.getMetadata().getLabels()).containsEntry("rbac.authorization.k8s.io/aggregate-to-view", "true")
        .doesNotContainKeys("rbac.authorization.k8s.io/aggregate-to-edit", "rbac.authorization.k8s.io/aggregate-to-admin");

    assertThat(Permission.grantedBy(edit.getRules())).containsAll(permissions(KINDS,
        List.of("get", "list", "watch", "create", "update", "patch", "delete", "deletecollection")));
    assertThat(Permission.grantedBy(edit.getRules())).as("status is the operator's alone")
        .noneMatch(p -> p.resource().endsWith("/status"));
    assertThat(Permission.grantedBy(view.getRules()))
        .containsExactlyInAnyOrderElementsOf(permissions(List.of("workflows", "workerservices", "retrypolicies",
            "workflows/status", "workerservices/status", "retrypolicies/status"), List.of("get", "list", "watch")));

    List<String> bound = chart.all(ClusterRoleBinding.class).stream().map(b -> b.getRoleRef().getName()).toList();
    assertThat(bound).doesNotContain(edit.getMetadata().getName(), view.getMetadata().getName());
    assertThat(chart.all(RoleBinding.class)).noneMatch(b -> b.getRoleRef().getName().endsWith("-edit"));
  }

  @Test
  void notWithWatchNamespacesNorWhenTurnedOff() {
    assertThat(Chart.template(ValueSet.WATCH_NAMESPACES).all(ClusterRole.class))
        .extracting(r -> r.getMetadata().getName()).doesNotContain(Chart.RELEASE + "-edit", Chart.RELEASE + "-view");
    assertThat(Chart.template(ValueSet.DEFAULTS, Map.of("rbac.aggregatedRoles", false)).all(ClusterRole.class))
        .extracting(r -> r.getMetadata().getName()).doesNotContain(Chart.RELEASE + "-edit", Chart.RELEASE + "-view");
  }

  private static List<Permission> permissions(List<String> resources, List<String> verbs) {
    return resources.stream().flatMap(r -> verbs.stream().map(v -> new Permission("baton.dev", r, v))).toList();
  }
}
