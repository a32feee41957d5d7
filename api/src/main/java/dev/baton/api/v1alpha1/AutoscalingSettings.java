package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;

/** Scaling of a WorkerService's Deployment on queue depth, carried out by KEDA. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.minReplicas <= self.maxReplicas", message = "minReplicas must not exceed maxReplicas")
public class AutoscalingSettings {

  @JsonPropertyDescription("Fewest worker pods (0 lets KEDA scale to zero when the queues are empty).")
  @Min(0)
  @Default("1")
  private Integer minReplicas = 1;

  @JsonPropertyDescription("Most worker pods.")
  @Required
  @Min(1)
  private Integer maxReplicas;

  @JsonPropertyDescription("Messages (ready plus unacknowledged) per pod and command queue that KEDA aims for.")
  @Min(1)
  @Default("100")
  private Integer targetQueueDepth = 100;

  @JsonPropertyDescription("Seconds after the last scale-up trigger before scaling down.")
  @Min(0)
  @Default("300")
  private Integer cooldownSeconds = 300;

  public Integer getMinReplicas() {
    return minReplicas;
  }

  public void setMinReplicas(Integer minReplicas) {
    this.minReplicas = minReplicas;
  }

  public Integer getMaxReplicas() {
    return maxReplicas;
  }

  public void setMaxReplicas(Integer maxReplicas) {
    this.maxReplicas = maxReplicas;
  }

  public Integer getTargetQueueDepth() {
    return targetQueueDepth;
  }

  public void setTargetQueueDepth(Integer targetQueueDepth) {
    this.targetQueueDepth = targetQueueDepth;
  }

  public Integer getCooldownSeconds() {
    return cooldownSeconds;
  }

  public void setCooldownSeconds(Integer cooldownSeconds) {
    this.cooldownSeconds = cooldownSeconds;
  }
}
