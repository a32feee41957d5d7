package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("The staircase as the operator reads it (written by the operator only), and the conditions.")
public class RetryPolicyStatus extends BatonStatus {

  @JsonPropertyDescription("Retries after the first delivery (maxAttempts - 1).")
  private Integer retries;

  @JsonPropertyDescription("The delays, normalised as they appear in queue names (120s is written 2m).")
  @Size(max = Bounds.DELAYS)
  private List<@Size(max = Bounds.DURATION) String> delays;

  @JsonPropertyDescription("The distinct delays actually used by the retries: one retry queue per command each.")
  @Size(max = Bounds.DELAYS)
  private List<@Size(max = Bounds.DURATION) String> tiers;

  public Integer getRetries() {
    return retries;
  }

  public void setRetries(Integer retries) {
    this.retries = retries;
  }

  public List<String> getDelays() {
    return delays;
  }

  public void setDelays(List<String> delays) {
    this.delays = delays;
  }

  public List<String> getTiers() {
    return tiers;
  }

  public void setTiers(List<String> tiers) {
    this.tiers = tiers;
  }
}
