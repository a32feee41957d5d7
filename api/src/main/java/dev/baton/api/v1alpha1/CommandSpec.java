package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** A command a WorkerService accepts. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class CommandSpec {

  @JsonPropertyDescription("Command name: lowercase letters, digits, '_' and '-', no dots. Queue q.<service>.<name>, routing key service.<service>.<name>.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("Name of a RetryPolicy in the same namespace. Without one, the first technical failure dead-letters the command.")
  @Pattern(Bounds.OBJECT_NAME_PATTERN)
  @Size(max = Bounds.OBJECT_NAME)
  private String retryPolicy;

  @JsonPropertyDescription("At most this many commands of it dispatched at once (sent and not yet answered, timed out "
      + "or cancelled), across all runtimes; the rest wait in the runtime's outbox, in order. Without it, no limit. "
      + "E.g. the 50 concurrent calls a provider allows.")
  @Min(1)
  @Max(Bounds.MAX_IN_FLIGHT)
  private Integer maxInFlight;

  public CommandSpec() {}

  public CommandSpec(String name, String retryPolicy) {
    this.name = name;
    this.retryPolicy = retryPolicy;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getRetryPolicy() {
    return retryPolicy;
  }

  public void setRetryPolicy(String retryPolicy) {
    this.retryPolicy = retryPolicy;
  }

  public Integer getMaxInFlight() {
    return maxInFlight;
  }

  public void setMaxInFlight(Integer maxInFlight) {
    this.maxInFlight = maxInFlight;
  }
}
