package dev.baton.operator.dependent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.HealthSettings;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.operator.broker.PasswordHash;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The worker pods' annotations (the spec's, and what rolls them when their password changes) and the variables Baton
 * adds to the spec's.
 */
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

  @Test
  void aWorkerServiceThatAsksForHealthTellsTheSdkItsPortOverTheSpecsOwnVariable() {
    WorkerService ws = workerService("uid-1");
    ws.getSpec().getDeployment().setEnv(List.of(new EnvVar("BATON_HEALTH_PORT", "9999", null),
        new EnvVar("PAY_MODE", "live", null)));
    ws.getSpec().getDeployment().setHealth(new HealthSettings(8081));

    assertThat(WorkerDeploymentDependent.environment(ws, plan(null), ws.getSpec().getDeployment()))
        .filteredOn(e -> e.getName().equals("BATON_HEALTH_PORT")).extracting(EnvVar::getValue).containsExactly("8081");
  }

  @Test
  void withoutHealthTheOperatorSetsNoHealthPort() {
    WorkerService ws = workerService("uid-1");
    ws.getSpec().getDeployment().setEnv(List.of(new EnvVar("BATON_HEALTH_PORT", "9999", null)));

    assertThat(WorkerDeploymentDependent.environment(ws, plan(null), ws.getSpec().getDeployment()))
        .as("the spec's own, as written").filteredOn(e -> e.getName().equals("BATON_HEALTH_PORT"))
        .extracting(EnvVar::getValue).containsExactly("9999");
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
}
