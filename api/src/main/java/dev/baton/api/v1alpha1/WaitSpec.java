package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** What a wait step waits for: a named signal sent to the instance, for at most a timeout. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("A wait for a signal sent to the instance (POST /api/v1/instances/{id}/signals/{signal}).")
public class WaitSpec {

  @JsonPropertyDescription("The signal's name, e.g. 'approve'. A signal sent before the step starts is kept and consumed.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String signal;

  @JsonPropertyDescription("How long to wait, e.g. 24h; then the step fails with reason Timeout. Without it the step waits "
      + "indefinitely.")
  @Pattern(BatonDuration.PATTERN)
  @Size(max = Bounds.DURATION)
  private String timeout;

  public WaitSpec() {}

  public WaitSpec(String signal, String timeout) {
    this.signal = signal;
    this.timeout = timeout;
  }

  public String getSignal() {
    return signal;
  }

  public void setSignal(String signal) {
    this.signal = signal;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }
}
