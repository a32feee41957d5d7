package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.TlsTrust;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.operator.model.WorkerPodTranslator;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The workers' Deployment: the replicas, pod labels and annotations of the spec and its pod
 * ({@link WorkerPodTranslator}), plus the env of the spec, the names of their queues and exchanges
 * ({@link WorkerEnvironment}) and the broker credentials by reference to the Secret, never by value.
 */
@KubernetesDependent(informer = @Informer(labelSelector = WorkerResources.MANAGED_SELECTOR))
public class WorkerDeploymentDependent extends WorkerOwnedDependent<Deployment> {

  public WorkerDeploymentDependent() {
    super(Deployment.class);
  }

  @Override
  protected String resourceName(WorkerService ws) {
    return WorkerResources.deploymentName(ws);
  }

  @Override
  protected Deployment desired(WorkerService ws, Context<WorkerService> context) {
    WorkerPlan plan = WorkerPlan.from(context);
    DeploymentSettings settings = ws.getSpec().getDeployment();
    Map<String, String> podLabels = new LinkedHashMap<>();
    if (settings.getPodLabels() != null) {
      podLabels.putAll(settings.getPodLabels());
    }
    podLabels.putAll(WorkerResources.labels(ws));
    Map<String, String> podAnnotations = podAnnotations(ws, plan, CredentialsSecretDependent.current(ws, context));
    PodSpec pod = WorkerPodTranslator.fromCrd(settings).value();
    pod.getContainers().get(0).setEnv(environment(ws, plan, settings));
    if (plan.caPem() != null) {
      trustBrokerCa(ws, pod);
    }
    return new DeploymentBuilder()
        .withNewMetadata()
        .withName(resourceName(ws))
        .withNamespace(ws.getMetadata().getNamespace())
        .withLabels(WorkerResources.labels(ws))
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas(ws, plan, settings, context))
        .withNewSelector().withMatchLabels(WorkerResources.selector(ws)).endSelector()
        .withNewTemplate()
        .withNewMetadata().withLabels(podLabels).withAnnotations(podAnnotations).endMetadata()
        .withSpec(pod)
        .endTemplate()
        .endSpec()
        .build();
  }

  /**
   * The spec's pod annotations, and what rolls the pods when their password changes, since they read it from the
   * Secret only when they start: the credentials Secret's UID (a Secret recreated), the rotation value
   * ({@value WorkerResources#ROTATE_ANNOTATION}), and a checksum of an imported password ({@link PasswordChecksum}).
   */
  static Map<String, String> podAnnotations(WorkerService ws, WorkerPlan plan, Optional<Secret> credentials) {
    Map<String, String> annotations = new LinkedHashMap<>();
    DeploymentSettings settings = ws.getSpec().getDeployment();
    if (settings.getPodAnnotations() != null) {
      annotations.putAll(settings.getPodAnnotations());
    }
    credentials.map(s -> s.getMetadata().getUid())
        .ifPresent(uid -> annotations.put(WorkerResources.CREDENTIALS_UID_ANNOTATION, uid));
    WorkerResources.rotation(ws).ifPresent(r -> annotations.put(WorkerResources.ROTATE_ANNOTATION, r));
    if (plan.importedPassword() != null) {
      String salt = Optional.ofNullable(ws.getMetadata().getUid())
          .orElse(ws.getMetadata().getNamespace() + "/" + ws.getMetadata().getName());
      annotations.put(WorkerResources.IMPORTED_PASSWORD_ANNOTATION,
          PasswordChecksum.of(plan.importedPassword(), salt));
    }
    return annotations;
  }

  /**
   * While KEDA owns the replica count the operator must not fight it: with server-side apply the field is left out
   * (the operator does not own it); with plain updates, which replace the whole spec, the current count is kept. A
   * Deployment created before KEDA is known to be able to scale it (its API may still be forbidden) starts with the
   * spec's replicas, never with none.
   */
  private Integer replicas(WorkerService ws, WorkerPlan plan, DeploymentSettings settings,
      Context<WorkerService> context) {
    if (plan.replicasFromSpec()) {
      return settings.getReplicas();
    }
    return useSSA(context) ? null : getSecondaryResource(ws, context)
        .map(d -> d.getSpec() == null ? null : d.getSpec().getReplicas()).orElse(settings.getReplicas());
  }

  /**
   * Mounts the credentials Secret's CA certificate read-only ({@code ca.crt} in
   * {@value WorkerPodTranslator#BROKER_CA_DIRECTORY}) and points BATON_RABBITMQ_CA_FILE at it.
   */
  static void trustBrokerCa(WorkerService ws, PodSpec pod) {
    pod.getVolumes().add(new VolumeBuilder().withName(WorkerPodTranslator.BROKER_CA_VOLUME).withNewSecret()
        .withSecretName(WorkerResources.secretName(ws)).addNewItem().withKey(Credentials.CA).withPath(Credentials.CA)
        .endItem().endSecret().build());
    pod.getContainers().get(0).getVolumeMounts().add(new VolumeMountBuilder()
        .withName(WorkerPodTranslator.BROKER_CA_VOLUME).withMountPath(WorkerPodTranslator.BROKER_CA_DIRECTORY)
        .withReadOnly(true).build());
    pod.getContainers().get(0).getEnv().add(new EnvVar(TlsTrust.CA_FILE_VARIABLE,
        WorkerPodTranslator.BROKER_CA_DIRECTORY + "/" + Credentials.CA, null));
  }

  /**
   * The spec's variables, then Baton's (which win over a spec variable of the same name: the health port with
   * spec.deployment.health too), then the credentials.
   */
  static List<EnvVar> environment(WorkerService ws, WorkerPlan plan, DeploymentSettings settings) {
    Set<String> ours = new HashSet<>(plan.environment().keySet());
    ours.addAll(List.of(WorkerEnvironment.RABBITMQ_URI, WorkerEnvironment.RABBITMQ_USERNAME,
        WorkerEnvironment.RABBITMQ_PASSWORD));
    if (plan.caPem() != null) {
      ours.add(TlsTrust.CA_FILE_VARIABLE);
    }
    Integer healthPort = settings.getHealth() == null ? null : settings.getHealth().getPort();
    if (healthPort != null) {
      ours.add(WorkerEnvironment.HEALTH_PORT); // the port the probes ask is the one the SDK opens
    }
    List<EnvVar> env = new ArrayList<>();
    settings.getEnv().stream().filter(e -> !ours.contains(e.getName())).forEach(env::add);
    plan.environment().forEach((name, value) -> env.add(new EnvVar(name, value, null)));
    if (healthPort != null) {
      env.add(new EnvVar(WorkerEnvironment.HEALTH_PORT, String.valueOf(healthPort), null));
    }
    String secret = WorkerResources.secretName(ws);
    env.add(fromSecret(WorkerEnvironment.RABBITMQ_URI, secret, Credentials.URI));
    env.add(fromSecret(WorkerEnvironment.RABBITMQ_USERNAME, secret, Credentials.USERNAME));
    env.add(fromSecret(WorkerEnvironment.RABBITMQ_PASSWORD, secret, Credentials.PASSWORD));
    return env;
  }

  private static EnvVar fromSecret(String name, String secret, String key) {
    return new EnvVarBuilder().withName(name)
        .withNewValueFrom().withNewSecretKeyRef().withName(secret).withKey(key).endSecretKeyRef().endValueFrom()
        .build();
  }
}
