package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.OneOfRequired;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * The PodDisruptionBudget of a WorkerService's worker pods: one of its two bounds, as a PodDisruptionBudget takes them
 * (a number of pods or a percentage of the Deployment's replicas).
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a field of a newer CRD must not stop the reader
@JsonInclude(JsonInclude.Include.NON_NULL)
@OneOfRequired({"minAvailable", "maxUnavailable"})
public class DisruptionBudgetSettings {

  @JsonPropertyDescription("Worker pods that must stay available during a voluntary disruption (a node drain): a "
      + "number, or a percentage of the replicas such as '50%'.")
  private IntOrString minAvailable;

  @JsonPropertyDescription("Worker pods that may be unavailable at once during a voluntary disruption: a number, or a "
      + "percentage of the replicas such as '25%'.")
  private IntOrString maxUnavailable;

  public DisruptionBudgetSettings() {}

  public DisruptionBudgetSettings(IntOrString minAvailable, IntOrString maxUnavailable) {
    this.minAvailable = minAvailable;
    this.maxUnavailable = maxUnavailable;
  }

  public IntOrString getMinAvailable() {
    return minAvailable;
  }

  public void setMinAvailable(IntOrString minAvailable) {
    this.minAvailable = minAvailable;
  }

  public IntOrString getMaxUnavailable() {
    return maxUnavailable;
  }

  public void setMaxUnavailable(IntOrString maxUnavailable) {
    this.maxUnavailable = maxUnavailable;
  }
}
