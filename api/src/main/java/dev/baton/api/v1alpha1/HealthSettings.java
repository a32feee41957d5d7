package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Required;

/**
 * The health endpoint of workers built on a Baton SDK ({@code /healthz}, {@code /readyz} and {@code /metrics} on
 * {@code BATON_HEALTH_PORT}). Opt-in: a worker not on an SDK serves none, and a probe of a port nobody listens on would
 * restart it forever.
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a field of a newer CRD must not stop the reader
@JsonInclude(JsonInclude.Include.NON_NULL)
public class HealthSettings {

  @JsonPropertyDescription("Port of the SDK's health endpoint: set as BATON_HEALTH_PORT, opened as the container port "
      + "named 'health', and probed (GET /healthz) unless spec.deployment gives probes of its own.")
  @Required
  @Min(1)
  @Max(65_535)
  private Integer port;

  public HealthSettings() {}

  public HealthSettings(Integer port) {
    this.port = port;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }
}
