package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.baton.contract.InstanceOutcome;

/** How an instance ended, as a subscription to a Workflow's outcomes names it (docs/design.md#broker-names). */
public enum Outcome {
  @JsonProperty("succeeded")
  SUCCEEDED,
  @JsonProperty("failed")
  FAILED,
  @JsonProperty("compensated")
  COMPENSATED,
  @JsonProperty("cancelled")
  CANCELLED;

  public InstanceOutcome toInstanceOutcome() {
    return switch (this) {
      case SUCCEEDED -> InstanceOutcome.SUCCEEDED;
      case FAILED -> InstanceOutcome.FAILED;
      case COMPENSATED -> InstanceOutcome.COMPENSATED;
      case CANCELLED -> InstanceOutcome.CANCELLED;
    };
  }
}
