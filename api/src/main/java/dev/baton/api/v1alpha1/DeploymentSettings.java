package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.AllowedValues;
import dev.baton.api.crd.ListMap;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.LocalObjectReference;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Deployment of a WorkerService's workers. The fields users set are validated by the schema as Kubernetes would
 * validate them in the Deployment (variable names, pull policy, quantities), so a bad value is refused at
 * {@code kubectl apply} rather than by the Deployment write half-way through a reconcile. The pod template fields have
 * the names and types of a Pod's and a container's (fabric8's core model), so a pod spec can be copied in as it is;
 * the container ones apply to the worker container.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DeploymentSettings {

  @JsonPropertyDescription("Container image of the workers.")
  @Required
  @Size(min = 1, max = Bounds.IMAGE)
  private String image;

  @JsonPropertyDescription("Number of worker pods (ignored while autoscaling is on).")
  @Min(0)
  @Default("1")
  private Integer replicas = 1;

  @JsonPropertyDescription("Extra environment variables of the worker container, unique by name. Baton adds BATON_* "
      + "variables with the queue and exchange names and the broker credentials (by Secret reference); those win over "
      + "a variable of the same name here.")
  @Size(max = Bounds.ENV)
  @ListMap(keys = "name")
  private List<EnvVar> env = new ArrayList<>();

  @JsonPropertyDescription("CPU and memory requests and limits of the worker container, as Kubernetes quantities "
      + "(100m, 0.5, 256Mi, 1Gi).")
  private ResourceRequirements resources;

  @JsonPropertyDescription("Image pull policy: Always, IfNotPresent or Never (Kubernetes' default when unset: "
      + "Always for ':latest' and untagged images, else IfNotPresent).")
  @AllowedValues({"Always", "IfNotPresent", "Never"})
  private String imagePullPolicy;

  @JsonPropertyDescription("Service account the worker pods run as (the namespace's 'default' when unset).")
  @Size(max = Bounds.OBJECT_NAME)
  @Pattern(Bounds.OBJECT_NAME_PATTERN)
  private String serviceAccountName;

  @JsonPropertyDescription("Extra labels on the worker pods. Baton's own labels (app.kubernetes.io/name, "
      + "app.kubernetes.io/managed-by, baton.dev/worker-service) win over these.")
  @Size(max = Bounds.MAP_ENTRIES)
  private Map<String, @Size(max = Bounds.LABEL_VALUE) String> podLabels;

  @JsonPropertyDescription("Extra annotations on the worker pods (e.g. for a service mesh or log shipping). Baton's own "
      + "(baton.dev/credentials-secret-uid, which restarts the pods when the credentials change) wins over these.")
  @Size(max = Bounds.MAP_ENTRIES)
  private Map<String, @Size(max = Bounds.ANNOTATION_VALUE) String> podAnnotations;

  @JsonPropertyDescription("Node labels a node must have for the worker pods to run on it.")
  @Size(max = Bounds.MAP_ENTRIES)
  private Map<String, @Size(max = Bounds.LABEL_VALUE) String> nodeSelector;

  @JsonPropertyDescription("Taints the worker pods tolerate: see 'kubectl explain pod.spec.tolerations'.")
  @Size(max = Bounds.SHORT_LIST)
  private List<Toleration> tolerations;

  @JsonPropertyDescription("Security context of the worker pods (runAsNonRoot, runAsUser, fsGroup, seccompProfile, ...): "
      + "see 'kubectl explain pod.spec.securityContext'. Unset: runAsNonRoot true and seccompProfile RuntimeDefault, "
      + "as the restricted Pod Security Standard requires (the image must run as a non-root user).")
  private PodSecurityContext podSecurityContext;

  @JsonPropertyDescription("Security context of the worker container (allowPrivilegeEscalation, capabilities, "
      + "readOnlyRootFilesystem, ...): see 'kubectl explain pod.spec.containers.securityContext'. Unset: "
      + "allowPrivilegeEscalation false and every capability dropped, as the restricted Pod Security Standard requires.")
  private SecurityContext securityContext;

  @JsonPropertyDescription("Secrets with the credentials of private registries the image is pulled from: see "
      + "'kubectl explain pod.spec.imagePullSecrets'.")
  @Size(max = Bounds.SHORT_LIST)
  @ListMap(keys = "name")
  private List<LocalObjectReference> imagePullSecrets;

  @JsonPropertyDescription("Node and pod affinity of the worker pods: see 'kubectl explain pod.spec.affinity'.")
  private Affinity affinity;

  @JsonPropertyDescription("How the worker pods spread over zones and nodes: see "
      + "'kubectl explain pod.spec.topologySpreadConstraints'. Select the pods with the label baton.dev/worker-service.")
  @Size(max = Bounds.SHORT_LIST)
  private List<TopologySpreadConstraint> topologySpreadConstraints;

  @JsonPropertyDescription("PriorityClass of the worker pods (the cluster's default when unset).")
  @Size(max = Bounds.OBJECT_NAME)
  @Pattern(Bounds.OBJECT_NAME_PATTERN)
  private String priorityClassName;

  @JsonPropertyDescription("Volumes of the worker pods, unique by name, for the worker container's volumeMounts: see "
      + "'kubectl explain pod.spec.volumes'. The name baton-broker-ca is Baton's.")
  @Size(max = Bounds.SHORT_LIST)
  @ListMap(keys = "name")
  private List<Volume> volumes;

  @JsonPropertyDescription("Where the worker container mounts volumes of spec.deployment.volumes, unique by mountPath: "
      + "see 'kubectl explain pod.spec.containers.volumeMounts'. /etc/baton/broker is Baton's.")
  @Size(max = Bounds.SHORT_LIST)
  @ListMap(keys = "mountPath")
  private List<VolumeMount> volumeMounts;

  @JsonPropertyDescription("Entrypoint of the worker container, instead of the image's ENTRYPOINT.")
  @Size(max = Bounds.SHORT_LIST)
  private List<@Size(max = Bounds.ENV_VALUE) String> command;

  @JsonPropertyDescription("Arguments of the worker container, instead of the image's CMD.")
  @Size(max = Bounds.SHORT_LIST)
  private List<@Size(max = Bounds.ENV_VALUE) String> args;

  @JsonPropertyDescription("ConfigMaps and Secrets whose keys become environment variables of the worker container: see "
      + "'kubectl explain pod.spec.containers.envFrom'. Variables of env and Baton's BATON_* win over these.")
  @Size(max = Bounds.SHORT_LIST)
  private List<EnvFromSource> envFrom;

  @JsonPropertyDescription("Liveness probe of the worker container: see 'kubectl explain pod.spec.containers.livenessProbe'.")
  private Probe livenessProbe;

  @JsonPropertyDescription("Readiness probe of the worker container: see "
      + "'kubectl explain pod.spec.containers.readinessProbe'.")
  private Probe readinessProbe;

  @JsonPropertyDescription("Startup probe of the worker container: see 'kubectl explain pod.spec.containers.startupProbe'.")
  private Probe startupProbe;

  @JsonPropertyDescription("A PodDisruptionBudget over the worker pods, so that a node drain keeps enough of them "
      + "running: exactly one of minAvailable and maxUnavailable. Removing it deletes the budget.")
  private DisruptionBudgetSettings podDisruptionBudget;

  @JsonPropertyDescription("The health endpoint of a worker built on a Baton SDK (Java, Python, TypeScript): its port "
      + "becomes BATON_HEALTH_PORT, a container port named 'health', and liveness and readiness probes of GET /healthz "
      + "unless livenessProbe or readinessProbe are given. Unset: none (a worker not on an SDK serves no endpoint).")
  private HealthSettings health;

  public String getImage() {
    return image;
  }

  public void setImage(String image) {
    this.image = image;
  }

  public Integer getReplicas() {
    return replicas;
  }

  public void setReplicas(Integer replicas) {
    this.replicas = replicas;
  }

  public List<EnvVar> getEnv() {
    return env;
  }

  public void setEnv(List<EnvVar> env) {
    this.env = env == null ? new ArrayList<>() : env;
  }

  public ResourceRequirements getResources() {
    return resources;
  }

  public void setResources(ResourceRequirements resources) {
    this.resources = resources;
  }

  public String getImagePullPolicy() {
    return imagePullPolicy;
  }

  public void setImagePullPolicy(String imagePullPolicy) {
    this.imagePullPolicy = imagePullPolicy;
  }

  public String getServiceAccountName() {
    return serviceAccountName;
  }

  public void setServiceAccountName(String serviceAccountName) {
    this.serviceAccountName = serviceAccountName;
  }

  public Map<String, String> getPodLabels() {
    return podLabels;
  }

  public void setPodLabels(Map<String, String> podLabels) {
    this.podLabels = podLabels;
  }

  public Map<String, String> getPodAnnotations() {
    return podAnnotations;
  }

  public void setPodAnnotations(Map<String, String> podAnnotations) {
    this.podAnnotations = podAnnotations;
  }

  public Map<String, String> getNodeSelector() {
    return nodeSelector;
  }

  public void setNodeSelector(Map<String, String> nodeSelector) {
    this.nodeSelector = nodeSelector;
  }

  public List<Toleration> getTolerations() {
    return tolerations;
  }

  public void setTolerations(List<Toleration> tolerations) {
    this.tolerations = tolerations;
  }

  public PodSecurityContext getPodSecurityContext() {
    return podSecurityContext;
  }

  public void setPodSecurityContext(PodSecurityContext podSecurityContext) {
    this.podSecurityContext = podSecurityContext;
  }

  public SecurityContext getSecurityContext() {
    return securityContext;
  }

  public void setSecurityContext(SecurityContext securityContext) {
    this.securityContext = securityContext;
  }
  public List<LocalObjectReference> getImagePullSecrets() {
    return imagePullSecrets;
  }

  public void setImagePullSecrets(List<LocalObjectReference> imagePullSecrets) {
    this.imagePullSecrets = imagePullSecrets;
  }

  public Affinity getAffinity() {
    return affinity;
  }

  public void setAffinity(Affinity affinity) {
    this.affinity = affinity;
  }

  public List<TopologySpreadConstraint> getTopologySpreadConstraints() {
    return topologySpreadConstraints;
  }

  public void setTopologySpreadConstraints(List<TopologySpreadConstraint> topologySpreadConstraints) {
    this.topologySpreadConstraints = topologySpreadConstraints;
  }

  public String getPriorityClassName() {
    return priorityClassName;
  }

  public void setPriorityClassName(String priorityClassName) {
    this.priorityClassName = priorityClassName;
  }

  public List<Volume> getVolumes() {
    return volumes;
  }

  public void setVolumes(List<Volume> volumes) {
    this.volumes = volumes;
  }

  public List<VolumeMount> getVolumeMounts() {
    return volumeMounts;
  }

  public void setVolumeMounts(List<VolumeMount> volumeMounts) {
    this.volumeMounts = volumeMounts;
  }

  public List<String> getCommand() {
    return command;
  }

  public void setCommand(List<String> command) {
    this.command = command;
  }

  public List<String> getArgs() {
    return args;
  }

  public void setArgs(List<String> args) {
    this.args = args;
  }

  public List<EnvFromSource> getEnvFrom() {
    return envFrom;
  }

  public void setEnvFrom(List<EnvFromSource> envFrom) {
    this.envFrom = envFrom;
  }

  public Probe getLivenessProbe() {
    return livenessProbe;
  }

  public void setLivenessProbe(Probe livenessProbe) {
    this.livenessProbe = livenessProbe;
  }

  public Probe getReadinessProbe() {
    return readinessProbe;
  }

  public void setReadinessProbe(Probe readinessProbe) {
    this.readinessProbe = readinessProbe;
  }

  public Probe getStartupProbe() {
    return startupProbe;
  }

  public void setStartupProbe(Probe startupProbe) {
    this.startupProbe = startupProbe;
  }

  public HealthSettings getHealth() {
    return health;
  }

  public void setHealth(HealthSettings health) {
    this.health = health;
  }

  public DisruptionBudgetSettings getPodDisruptionBudget() {
    return podDisruptionBudget;
  }

  public void setPodDisruptionBudget(DisruptionBudgetSettings podDisruptionBudget) {
    this.podDisruptionBudget = podDisruptionBudget;
  }
}
