package dev.baton.operator.it;

import static dev.baton.operator.it.Crs.deployment;
import static dev.baton.operator.it.Crs.workerService;
import static dev.baton.operator.it.OperatorFixture.WITHIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.DisruptionBudgetSettings;
import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.AffinityBuilder;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A WorkerService's pod template on the mock API server (CRUD mode): every field in the Deployment as written, next to
 * Baton's broker credentials; the PodDisruptionBudget made, changed and deleted with the spec; a mount of a volume
 * that does not exist refused by name, with nothing deployed.
 */
class PodTemplateIT {

  static final String NS = "pods";
  static OperatorFixture f;

  @BeforeAll
  static void start() {
    f = OperatorFixture.start("pods");
  }

  @AfterAll
  static void stop() {
    f.close();
  }

  @Test
  void thePodTemplateReachesTheDeploymentAndTheBudgetFollowsTheSpec() {
    DeploymentSettings settings = deployment("registry.example/pay:1.0", 2);
    settings.setImagePullSecrets(List.of(new LocalObjectReference("registry-credentials")));
    settings.setServiceAccountName("pay-worker");
    settings.setPriorityClassName("business-critical");
    settings.setNodeSelector(Map.of("pool", "workers"));
    settings.setTolerations(List.of(new TolerationBuilder().withKey("dedicated").withOperator("Equal")
        .withValue("workers").withEffect("NoSchedule").build()));
    settings.setAffinity(new AffinityBuilder().withNewPodAntiAffinity()
        .addNewPreferredDuringSchedulingIgnoredDuringExecution().withWeight(100).withNewPodAffinityTerm()
        .withTopologyKey("kubernetes.io/hostname").withNewLabelSelector()
        .withMatchLabels(Map.of("baton.dev/worker-service", "pay")).endLabelSelector().endPodAffinityTerm()
        .endPreferredDuringSchedulingIgnoredDuringExecution().endPodAntiAffinity().build());
    settings.setTopologySpreadConstraints(List.of(new TopologySpreadConstraintBuilder().withMaxSkew(1)
        .withTopologyKey("topology.kubernetes.io/zone").withWhenUnsatisfiable("ScheduleAnyway")
        .withNewLabelSelector().withMatchLabels(Map.of("baton.dev/worker-service", "pay")).endLabelSelector()
        .build()));
    settings.setVolumes(List.of(new VolumeBuilder().withName("cache").withNewEmptyDir().endEmptyDir().build(),
        new VolumeBuilder().withName("settings").withNewConfigMap().withName("pay-settings").endConfigMap().build()));
    settings.setVolumeMounts(List.of(new VolumeMountBuilder().withName("cache").withMountPath("/var/cache/pay").build(),
        new VolumeMountBuilder().withName("settings").withMountPath("/etc/pay").withReadOnly(true).build()));
    settings.setCommand(List.of("java"));
    settings.setArgs(List.of("-jar", "/app/worker.jar"));
    settings.setEnvFrom(List.of(new EnvFromSourceBuilder().withNewSecretRef().withName("pay-api-keys")
        .endSecretRef().build()));
    settings.setLivenessProbe(new ProbeBuilder().withNewHttpGet().withPath("/healthz")
        .withPort(new IntOrString(8080)).endHttpGet().withPeriodSeconds(10).build());
    settings.setReadinessProbe(new ProbeBuilder().withNewHttpGet().withPath("/readyz")
        .withPort(new IntOrString(8080)).endHttpGet().build());
    settings.setStartupProbe(new ProbeBuilder().withNewTcpSocket().withPort(new IntOrString(8080)).endTcpSocket()
        .withFailureThreshold(30).build());
    settings.setPodDisruptionBudget(new DisruptionBudgetSettings(new IntOrString(1), null));
    f.create(workerService(NS, "pay", spec -> spec.setDeployment(settings), "charge"));

    // No kubelet: the Deployment never has pods, so the topology is what becomes ready.
    f.awaitCondition(WorkerService.class, NS, "pay", ConditionTypes.TOPOLOGY_READY, true, "Declared");
    Deployment deployment = await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "pay"), d -> d != null);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container worker = pod.getContainers().get(0);
    assertThat(pod.getImagePullSecrets()).isEqualTo(settings.getImagePullSecrets());
    assertThat(pod.getServiceAccountName()).isEqualTo("pay-worker");
    assertThat(pod.getPriorityClassName()).isEqualTo("business-critical");
    assertThat(pod.getNodeSelector()).isEqualTo(settings.getNodeSelector());
    assertThat(pod.getTolerations()).isEqualTo(settings.getTolerations());
    assertThat(pod.getAffinity()).isEqualTo(settings.getAffinity());
    assertThat(pod.getTopologySpreadConstraints()).isEqualTo(settings.getTopologySpreadConstraints());
    assertThat(pod.getVolumes()).isEqualTo(settings.getVolumes());
    assertThat(worker.getVolumeMounts()).isEqualTo(settings.getVolumeMounts());
    assertThat(worker.getCommand()).isEqualTo(settings.getCommand());
    assertThat(worker.getArgs()).isEqualTo(settings.getArgs());
    assertThat(worker.getEnvFrom()).isEqualTo(settings.getEnvFrom());
    assertThat(worker.getLivenessProbe()).isEqualTo(settings.getLivenessProbe());
    assertThat(worker.getReadinessProbe()).isEqualTo(settings.getReadinessProbe());
    assertThat(worker.getStartupProbe()).isEqualTo(settings.getStartupProbe());
    assertThat(worker.getEnv()).as("the broker credentials still come from Baton's Secret")
        .filteredOn(e -> e.getName().equals("BATON_RABBITMQ_PASSWORD")).singleElement()
        .extracting(EnvVar::getValueFrom).satisfies(from ->
            assertThat(from.getSecretKeyRef().getName()).isEqualTo("pay-broker-credentials"));

    PodDisruptionBudget budget = await().atMost(WITHIN)
        .until(() -> f.get(PodDisruptionBudget.class, NS, "pay"), b -> b != null);
    assertThat(budget.getSpec().getMinAvailable()).isEqualTo(new IntOrString(1));
    assertThat(budget.getSpec().getMaxUnavailable()).isNull();
    assertThat(budget.getSpec().getSelector().getMatchLabels())
        .isEqualTo(deployment.getSpec().getSelector().getMatchLabels());
    assertThat(budget.getMetadata().getOwnerReferences()).singleElement()
        .satisfies(o -> assertThat(o.getName()).isEqualTo("pay"));

    f.edit(WorkerService.class, NS, "pay", ws -> {
      ws.getSpec().getDeployment().setPodDisruptionBudget(new DisruptionBudgetSettings(null, new IntOrString("25%")));
      return ws;
    });
    await().atMost(WITHIN).until(() -> new IntOrString("25%")
        .equals(f.get(PodDisruptionBudget.class, NS, "pay").getSpec().getMaxUnavailable()));
    assertThat(f.get(PodDisruptionBudget.class, NS, "pay").getSpec().getMinAvailable()).isNull();

    f.edit(WorkerService.class, NS, "pay", ws -> {
      ws.getSpec().getDeployment().setPodDisruptionBudget(null);
      return ws;
    });
    await().atMost(WITHIN).until(() -> f.get(PodDisruptionBudget.class, NS, "pay") == null);
    assertThat(f.get(Deployment.class, NS, "pay")).as("the Deployment stays").isNotNull();

    f.delete(WorkerService.class, NS, "pay");
    await().atMost(WITHIN).until(() -> f.get(Deployment.class, NS, "pay") == null);
  }

  @Test
  void aMountOfAVolumeThatDoesNotExistIsRefusedByNameAndNothingIsDeployed() {
    DeploymentSettings settings = deployment("registry.example/refund:1.0", 1);
    settings.setVolumeMounts(List.of(new VolumeMountBuilder().withName("cache").withMountPath("/cache").build()));
    settings.setPodDisruptionBudget(new DisruptionBudgetSettings(new IntOrString(1), new IntOrString(1)));
    f.create(workerService(NS, "refund", spec -> spec.setDeployment(settings), "refund"));

    assertThat(f.awaitReady(WorkerService.class, NS, "refund", false, "InvalidSpec").getMessage())
        .contains("spec.deployment.volumeMounts[0].name 'cache' names no volume of spec.deployment.volumes")
        .contains("spec.deployment.podDisruptionBudget: set exactly one of minAvailable and maxUnavailable");
    assertThat(f.get(Deployment.class, NS, "refund")).isNull();
    assertThat(f.get(PodDisruptionBudget.class, NS, "refund")).isNull();
  }
}
