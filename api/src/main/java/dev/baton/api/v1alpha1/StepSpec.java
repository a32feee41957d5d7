package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** One step of a Workflow: a command sent to a worker service, and how to undo it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StepSpec {

  @JsonPropertyDescription("Step name, unique in the Workflow; shown in the instance's history.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("The WorkerService (its service name) that runs the step.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String service;

  @JsonPropertyDescription("The command of that service to send.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String command;

  @JsonPropertyDescription("The action in the result events' routing keys <entity>.<action>.<result>; defaults to the command.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String action;

  @JsonPropertyDescription("How long to wait for a result, e.g. 30s or 5m. Without it the step waits indefinitely.")
  @Pattern(BatonDuration.PATTERN)
  @Size(max = Bounds.DURATION)
  private String timeout;

  @JsonPropertyDescription("What to do on timeout: Fail (reason Timeout) or Redispatch (send the command again, up to maxDispatches).")
  @Default("Fail")
  private OnTimeout onTimeout;

  @JsonPropertyDescription("With onTimeout: Redispatch, how many times the command is sent in all before the step fails.")
  @Min(1)
  @Max(100)
  private Integer maxDispatches;

  @JsonPropertyDescription("A command of the same service that undoes this step, sent when a later step fails and onFailure is Compensate.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String compensate;

  public StepSpec() {}

  public StepSpec(String name, String service, String command) {
    this.name = name;
    this.service = service;
    this.command = command;
  }

  /** The action of this step's events: {@code action}, or the command. */
  @JsonIgnore
  public String effectiveAction() {
    return action == null || action.isBlank() ? command : action;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getService() {
    return service;
  }

  public void setService(String service) {
    this.service = service;
  }

  public String getCommand() {
    return command;
  }

  public void setCommand(String command) {
    this.command = command;
  }

  public String getAction() {
    return action;
  }

  public void setAction(String action) {
    this.action = action;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }

  public OnTimeout getOnTimeout() {
    return onTimeout;
  }

  public void setOnTimeout(OnTimeout onTimeout) {
    this.onTimeout = onTimeout;
  }

  public Integer getMaxDispatches() {
    return maxDispatches;
  }

  public void setMaxDispatches(Integer maxDispatches) {
    this.maxDispatches = maxDispatches;
  }

  public String getCompensate() {
    return compensate;
  }

  public void setCompensate(String compensate) {
    this.compensate = compensate;
  }
}
