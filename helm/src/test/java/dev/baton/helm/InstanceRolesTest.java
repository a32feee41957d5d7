package dev.baton.helm;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.rbac.InstanceRoles;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The ClusterRoles for instances (who may start, signal, retry, cancel and replay under BATON_AUTH=kubernetes) are
 * the project's {@link InstanceRoles}, rule for rule and label for label, join view and edit, and are bound to no one.
 */
class InstanceRolesTest {

  @Test
  void theChartRendersTheProjectsInstanceRolesExactly() {
    Rendered chart = Chart.template(ValueSet.DEFAULTS);
    ClusterRole view = chart.get(ClusterRole.class, Chart.RELEASE + "-instances-view");
    ClusterRole edit = chart.get(ClusterRole.class, Chart.RELEASE + "-instances-edit");

    ClusterRole expectedView = InstanceRoles.view(view.getMetadata().getName());
    ClusterRole expectedEdit = InstanceRoles.edit(edit.getMetadata().getName());
    assertThat(view.getRules()).isEqualTo(expectedView.getRules());
    assertThat(edit.getRules()).isEqualTo(expectedEdit.getRules());
    assertThat(view.getMetadata().getLabels()).containsAllEntriesOf(expectedView.getMetadata().getLabels())
        .doesNotContainKey("rbac.authorization.k8s.io/aggregate-to-edit");
    assertThat(edit.getMetadata().getLabels()).containsAllEntriesOf(expectedEdit.getMetadata().getLabels())
        .doesNotContainKey("rbac.authorization.k8s.io/aggregate-to-view");
    assertThat(chart.all(ClusterRoleBinding.class)).noneMatch(b -> b.getRoleRef().getName().contains("-instances-"));
  }

  @Test
  void editMayStartSignalRetryCancelAndReplayButViewOnlyReads() {
    assertThat(Permission.grantedBy(InstanceRoles.edit("e").getRules())).contains(
        new Permission("baton.dev", "workflows/instances", "create"),
        new Permission("baton.dev", "workflows/instances", "update"),
        new Permission("baton.dev", "workflows/instances", "delete"),
        new Permission("baton.dev", "workerservices/deadletters", "create"));
    assertThat(Permission.grantedBy(InstanceRoles.view("v").getRules()))
        .allMatch(p -> p.verb().equals("get") || p.verb().equals("list"));
  }

  @Test
  void notWithWatchNamespacesNorWhenTurnedOff() {
    assertThat(Chart.template(ValueSet.WATCH_NAMESPACES).all(ClusterRole.class))
        .noneMatch(r -> r.getMetadata().getName().contains("-instances-"));
    assertThat(Chart.template(ValueSet.DEFAULTS, Map.of("rbac.aggregatedRoles", false)).all(ClusterRole.class))
        .noneMatch(r -> r.getMetadata().getName().contains("-instances-"));
  }
}
