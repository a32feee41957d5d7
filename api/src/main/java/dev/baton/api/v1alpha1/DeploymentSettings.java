package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The Deployment of a WorkerService's workers. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DeploymentSettings {

  @JsonPropertyDescription("Container image of the workers.")
  @Required
  private String image;

  @JsonPropertyDescription("Number of worker pods (ignored while autoscaling is on).")
  @Min(0)
  @Default("1")
  private Integer replicas = 1;

  @JsonPropertyDescription("Extra environment variables. Baton adds BATON_* variables with the queue and exchange names and the broker credentials (by Secret reference).")
  private List<EnvVar> env = new ArrayList<>();

  @JsonPropertyDescription("CPU and memory requests and limits of the worker container.")
  private ResourceRequirements resources;

  @JsonPropertyDescription("Image pull policy: Always, IfNotPresent or Never.")
  private String imagePullPolicy;

  @JsonPropertyDescription("Service account the worker pods run as.")
  private String serviceAccountName;

  @JsonPropertyDescription("Extra labels on the worker pods.")
  private Map<String, String> podLabels;

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
}
