package dev.baton.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.DeploymentSettings;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod template fields of spec.deployment reach the worker pods as they are. */
class WorkerPodTemplateTest {

  @Test
  void nodeSelectorTolerationsAndSecurityContextsArePassedThrough() {
    DeploymentSettings settings = new DeploymentSettings();
    settings.setNodeSelector(Map.of("pool", "workers"));
    settings.setTolerations(List.of(new TolerationBuilder().withKey("dedicated").withOperator("Equal")
        .withValue("workers").withEffect("NoSchedule").build()));
    settings.setPodSecurityContext(new PodSecurityContextBuilder().withRunAsNonRoot(true)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().build());
    settings.setSecurityContext(new SecurityContextBuilder().withAllowPrivilegeEscalation(false)
        .withNewCapabilities().withDrop("ALL").endCapabilities().build());
    PodSpec pod = new PodSpecBuilder().addNewContainer().withName(WorkerResources.CONTAINER).endContainer().build();

    WorkerDeploymentDependent.passThrough(settings, pod);

    assertThat(pod.getNodeSelector()).containsEntry("pool", "workers");
    assertThat(pod.getTolerations()).singleElement().satisfies(t -> assertThat(t.getEffect()).isEqualTo("NoSchedule"));
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    assertThat(pod.getContainers().get(0).getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
  }

  @Test
  void withoutThemThePodMeetsTheRestrictedPodSecurityStandard() {
    PodSpec pod = new PodSpecBuilder().addNewContainer().withName(WorkerResources.CONTAINER).endContainer().build();
    WorkerDeploymentDependent.passThrough(new DeploymentSettings(), pod);
    assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
    var container = pod.getContainers().get(0).getSecurityContext();
    assertThat(container.getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getPrivileged()).as("never privileged").isNotEqualTo(Boolean.TRUE);
  }
}
