package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.contract.BatonDuration;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "self.maxAttempts == 1 || (has(self.delays) && size(self.delays) > 0)",
    message = "maxAttempts above 1 needs at least one delay, e.g. delays: [30s]")
@JsonClassDescription("How often a failed command is delivered again, and how long each retry waits.")
public class RetryPolicySpec extends TolerantSpec {

  @JsonPropertyDescription("Total deliveries of a command, the first included (1 = no retries). "
      + "After the last one the message is dead-lettered to q.dlx.<service>.<command> and an 'error' event is published.")
  @Required
  @Min(1)
  @Max(100)
  private Integer maxAttempts;

  @JsonPropertyDescription("The staircase: retry k waits delays[k-1]; the last delay repeats. "
      + "Durations such as 500ms, 30s, 2m, 1h or 1m30s. Each distinct delay is one retry queue q.retry.<service>.<command>.<delay>.")
  @Size(max = Bounds.DELAYS)
  private List<@Pattern(BatonDuration.PATTERN) @Size(max = Bounds.DURATION) String> delays = new ArrayList<>();

  public Integer getMaxAttempts() {
    return maxAttempts;
  }

  public void setMaxAttempts(Integer maxAttempts) {
    this.maxAttempts = maxAttempts;
  }

  public List<String> getDelays() {
    return delays;
  }

  public void setDelays(List<String> delays) {
    this.delays = delays;
  }
}
