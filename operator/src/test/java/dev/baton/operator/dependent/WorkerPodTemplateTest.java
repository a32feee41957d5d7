package dev.baton.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.operator.broker.PasswordHash;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The pod template fields of spec.deployment reach the worker pods as they are; a new password rolls them. */
class WorkerPodTemplateTest {

  @Test
  void aNewImportedPasswordChangesThePodTemplateWithoutShowingThePassword() {
    WorkerService ws = workerService("uid-1");

    Map<String, String> before = WorkerDeploymentDependent.podAnnotations(ws, plan("kept-in-the-vault-1"), Optional.empty());
    Map<String, String> again = WorkerDeploymentDependent.podAnnotations(ws, plan("kept-in-the-vault-1"), Optional.empty());
    Map<String, String> after = WorkerDeploymentDependent.podAnnotations(ws, plan("kept-in-the-vault-2"), Optional.empty());

    assertThat(before).containsKey(WorkerResources.IMPORTED_PASSWORD_ANNOTATION);
    assertThat(again).as("a calm resync rolls nothing").isEqualTo(before);
    assertThat(after.get(WorkerResources.IMPORTED_PASSWORD_ANNOTATION)).as("the pods roll")
        .isNotEqualTo(before.get(WorkerResources.IMPORTED_PASSWORD_ANNOTATION));
    assertThat(before.get(WorkerResources.IMPORTED_PASSWORD_ANNOTATION))
        .doesNotContain("kept-in-the-vault")
        .isNotEqualTo(PasswordHash.digest("kept-in-the-vault-1"))
        .isNotEqualTo(WorkerDeploymentDependent.podAnnotations(workerService("uid-2"), plan("kept-in-the-vault-1"),
            Optional.empty()).get(WorkerResources.IMPORTED_PASSWORD_ANNOTATION));
    assertThat(WorkerDeploymentDependent.podAnnotations(ws, plan(null), Optional.empty()))
        .as("a password drawn by the operator rolls the pods by its Secret and rotation").isEmpty();
  }

  @Test
  void theSpecsPodAnnotationsTheRotationAndTheSecretsUidAreOnThePods() {
    WorkerService ws = workerService("uid-1");
    ws.getSpec().getDeployment().setPodAnnotations(Map.of("team", "payments"));
    ws.getMetadata().setAnnotations(Map.of(WorkerResources.ROTATE_ANNOTATION, "2026-12-01"));

    assertThat(WorkerDeploymentDependent.podAnnotations(ws, plan(null), Optional.of(new SecretBuilder()
        .withNewMetadata().withUid("secret-uid").endMetadata().build())))
        .containsEntry("team", "payments")
        .containsEntry(WorkerResources.ROTATE_ANNOTATION, "2026-12-01")
        .containsEntry(WorkerResources.CREDENTIALS_UID_ANNOTATION, "secret-uid");
  }

  private static WorkerService workerService(String uid) {
    WorkerService ws = new WorkerService();
    ws.setMetadata(new ObjectMetaBuilder().withNamespace("vault").withName("keys").withUid(uid).build());
    WorkerServiceSpec spec = new WorkerServiceSpec();
    DeploymentSettings deployment = new DeploymentSettings();
    deployment.setImage("example/keys:1");
    spec.setDeployment(deployment);
    ws.setSpec(spec);
    return ws;
  }

  private static WorkerPlan plan(String importedPassword) {
    return new WorkerPlan("baton-keys", "127.0.0.1", 5672, "/", Map.of(), true, importedPassword, false, null);
  }

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
