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
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Deployment of a WorkerService's workers. The fields users set are validated by the schema as Kubernetes would
 * validate them in the Deployment (variable names, pull policy, quantities), so a bad value is refused at
 * {@code kubectl apply} rather than by the Deployment write half-way through a reconcile.
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
}
