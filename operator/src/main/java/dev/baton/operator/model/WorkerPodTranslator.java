package dev.baton.operator.model;

import dev.baton.api.v1alpha1.DeploymentSettings;
import dev.baton.api.v1alpha1.DisruptionBudgetSettings;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.Validated;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSecurityContextBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ProbeBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * spec.deployment → the worker pod as the user wrote it, or the problems a person must fix. Pure. Every pod template
 * field is copied as it is (lists into lists of the pod's own, so that what the operator adds never reaches the
 * spec); without security contexts of the spec's own, the pod gets those of the {@code restricted} Pod Security
 * Standard, so that it starts in a namespace that enforces it: non-root, the runtime's default seccomp profile, no
 * privilege escalation, no capabilities. What is Baton's, the worker's environment and the broker's CA, the
 * Deployment adds; the names it uses for that are {@link #BROKER_CA_VOLUME} and {@link #BROKER_CA_DIRECTORY}.
 *
 * <p>It checks what Kubernetes would otherwise refuse only at the Deployment's write, half-way through a reconcile, or
 * in the ReplicaSet, where no one looks: a mount of a volume that does not exist, two volumes or mounts that collide,
 * Baton's own names, a probe without a handler, a disruption budget with both bounds or none.
 */
public final class WorkerPodTranslator {

  /** The worker container's name. */
  public static final String CONTAINER = "worker";
  /** The volume of the broker's CA certificate, when the workers are given one. */
  public static final String BROKER_CA_VOLUME = "baton-broker-ca";
  /** Where the worker container finds the broker's CA certificate. */
  public static final String BROKER_CA_DIRECTORY = "/etc/baton/broker";
  /** The container port of the SDK's health endpoint (spec.deployment.health), which the default probes name. */
  public static final String HEALTH_PORT_NAME = "health";
  /** What the default probes ask: the SDKs answer 200 while connected and consuming, 503 otherwise. */
  static final String HEALTH_PATH = "/healthz";
  /**
   * The default liveness probe gives up after two minutes, longer than a broker restart: an SDK worker recovers its
   * connection by itself (worker-sdk/README.md#health-and-metrics), and a restart would only lose its in-flight work.
   */
  static final int LIVENESS_FAILURES = 12;
  static final int PROBE_PERIOD_SECONDS = 10;

  private static final String FIELD = "spec.deployment";

  private WorkerPodTranslator() {}

  /** The worker pod of {@code deployment}, its one container named {@link #CONTAINER}; environment not included. */
  public static Validated<PodSpec> fromCrd(DeploymentSettings deployment) {
    List<Problem> problems = new ArrayList<>();
    if (deployment.getImage() == null || deployment.getImage().isBlank()) {
      problems.add(Problem.invalid(FIELD + ".image is required when spec.deployment is set"));
    }
    checkPullSecrets(deployment.getImagePullSecrets(), problems);
    Set<String> volumes = checkVolumes(deployment.getVolumes(), problems);
    checkMounts(deployment.getVolumeMounts(), volumes, problems);
    checkProbe("livenessProbe", deployment.getLivenessProbe(), problems);
    checkProbe("readinessProbe", deployment.getReadinessProbe(), problems);
    checkProbe("startupProbe", deployment.getStartupProbe(), problems);
    checkDisruptionBudget(deployment.getPodDisruptionBudget(), problems);
    if (deployment.getHealth() != null && deployment.getHealth().getPort() == null) {
      problems.add(Problem.invalid(FIELD + ".health.port is required: the port of the SDK's health endpoint "
          + "(BATON_HEALTH_PORT)"));
    }
    return Validated.of(problems, () -> pod(deployment));
  }

  private static PodSpec pod(DeploymentSettings d) {
    Integer health = d.getHealth() == null ? null : d.getHealth().getPort();
    Container worker = new ContainerBuilder()
        .withName(CONTAINER)
        .withImage(d.getImage())
        .withImagePullPolicy(d.getImagePullPolicy())
        .withResources(d.getResources())
        .withCommand(copy(d.getCommand()))
        .withArgs(copy(d.getArgs()))
        .withEnvFrom(copy(d.getEnvFrom()))
        .withVolumeMounts(copy(d.getVolumeMounts()))
        .withPorts(health == null ? new ArrayList<>() : new ArrayList<>(List.of(new ContainerPortBuilder()
            .withName(HEALTH_PORT_NAME).withContainerPort(health).withProtocol("TCP").build())))
        .withLivenessProbe(d.getLivenessProbe() != null || health == null ? d.getLivenessProbe()
            : healthProbe(LIVENESS_FAILURES))
        .withReadinessProbe(d.getReadinessProbe() != null || health == null ? d.getReadinessProbe()
            : healthProbe(3))
        .withStartupProbe(d.getStartupProbe())
        .withSecurityContext(d.getSecurityContext() != null ? d.getSecurityContext() : restrictedContainer())
        .build();
    return new PodSpecBuilder()
        .withServiceAccountName(d.getServiceAccountName())
        .withImagePullSecrets(copy(d.getImagePullSecrets()))
        .withAffinity(d.getAffinity())
        .withTolerations(copy(d.getTolerations()))
        .withNodeSelector(d.getNodeSelector() == null ? null : new LinkedHashMap<>(d.getNodeSelector()))
        .withTopologySpreadConstraints(copy(d.getTopologySpreadConstraints()))
        .withPriorityClassName(d.getPriorityClassName())
        .withVolumes(copy(d.getVolumes()))
        .withSecurityContext(d.getPodSecurityContext() != null ? d.getPodSecurityContext() : restrictedPod())
        .withContainers(worker)
        .build();
  }

  /** GET /healthz on the health port, every {@value #PROBE_PERIOD_SECONDS} s, failing after {@code failures}. */
  private static Probe healthProbe(int failures) {
    return new ProbeBuilder().withNewHttpGet().withPath(HEALTH_PATH).withPort(new IntOrString(HEALTH_PORT_NAME))
        .endHttpGet().withPeriodSeconds(PROBE_PERIOD_SECONDS).withFailureThreshold(failures).build();
  }

  private static PodSecurityContext restrictedPod() {
    return new PodSecurityContextBuilder().withRunAsNonRoot(true)
        .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile().build();
  }

  private static SecurityContext restrictedContainer() {
    return new SecurityContextBuilder().withAllowPrivilegeEscalation(false)
        .withNewCapabilities().withDrop("ALL").endCapabilities().build();
  }

  /** A list of the pod's own (empty for none: fabric8 leaves empty lists out of the object it writes). */
  private static <T> List<T> copy(List<T> list) {
    return list == null ? new ArrayList<>() : new ArrayList<>(list);
  }

  private static void checkPullSecrets(List<LocalObjectReference> secrets, List<Problem> problems) {
    for (int i = 0; secrets != null && i < secrets.size(); i++) {
      if (secrets.get(i) == null || blank(secrets.get(i).getName())) {
        problems.add(Problem.invalid(FIELD + ".imagePullSecrets[" + i + "].name is required: the name of a Secret "
            + "of type kubernetes.io/dockerconfigjson in this namespace"));
      }
    }
  }

  /** @return the names of the volumes */
  private static Set<String> checkVolumes(List<Volume> volumes, List<Problem> problems) {
    Set<String> names = new HashSet<>();
    for (int i = 0; volumes != null && i < volumes.size(); i++) {
      String field = FIELD + ".volumes[" + i + "].name";
      String name = volumes.get(i) == null ? null : volumes.get(i).getName();
      if (blank(name)) {
        problems.add(Problem.invalid(field + " is required"));
      } else if (BROKER_CA_VOLUME.equals(name)) {
        problems.add(Problem.invalid(field + " '" + name + "' is Baton's (the broker's CA certificate): choose "
            + "another name"));
      } else if (!names.add(name)) {
        problems.add(Problem.invalid(field + " '" + name + "' is used by another volume: volume names are unique"));
      }
    }
    return names;
  }

  private static void checkMounts(List<VolumeMount> mounts, Set<String> volumes, List<Problem> problems) {
    Set<String> paths = new HashSet<>();
    for (int i = 0; mounts != null && i < mounts.size(); i++) {
      String field = FIELD + ".volumeMounts[" + i + "]";
      VolumeMount mount = mounts.get(i) == null ? new VolumeMount() : mounts.get(i);
      if (blank(mount.getName())) {
        problems.add(Problem.invalid(field + ".name is required: the name of one of spec.deployment.volumes"));
      } else if (!volumes.contains(mount.getName())) {
        problems.add(Problem.invalid(field + ".name '" + mount.getName() + "' names no volume of "
            + "spec.deployment.volumes" + (volumes.isEmpty() ? ", which has none" : " (" + String.join(", ",
                volumes.stream().sorted().toList()) + ")")));
      }
      String path = mount.getMountPath();
      if (blank(path)) {
        problems.add(Problem.invalid(field + ".mountPath is required"));
      } else if (normalised(path).equals(BROKER_CA_DIRECTORY)) {
        problems.add(Problem.invalid(field + ".mountPath '" + path + "' is Baton's (the broker's CA certificate): "
            + "choose another directory"));
      } else if (!paths.add(normalised(path))) {
        problems.add(Problem.invalid(field + ".mountPath '" + path + "' is used by another mount: mount paths are "
            + "unique"));
      }
    }
  }

  private static void checkProbe(String name, Probe probe, List<Problem> problems) {
    if (probe == null) {
      return;
    }
    long handlers = Stream.of(probe.getExec(), probe.getHttpGet(), probe.getTcpSocket(), probe.getGrpc())
        .filter(Objects::nonNull).count();
    if (handlers != 1) {
      problems.add(Problem.invalid(FIELD + "." + name + " has " + (handlers == 0 ? "no" : String.valueOf(handlers))
          + " handlers: set exactly one of exec, httpGet, tcpSocket and grpc"));
    }
  }

  private static void checkDisruptionBudget(DisruptionBudgetSettings budget, List<Problem> problems) {
    if (budget != null && (budget.getMinAvailable() == null) == (budget.getMaxUnavailable() == null)) {
      problems.add(Problem.invalid(FIELD + ".podDisruptionBudget: set exactly one of minAvailable and maxUnavailable"
          + (budget.getMinAvailable() == null ? "" : " (a PodDisruptionBudget takes one or the other, not both)")));
    }
  }

  private static String normalised(String path) {
    return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
