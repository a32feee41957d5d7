package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListMap;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Map;

/**
 * One step of a Workflow, of exactly one kind (docs/design.md#workflow-language): a task (service and command), a
 * parallel group, a choice, a map over a list, a child workflow, a wait for a signal, or a delay. The kinds nest (parallel branches and choice cases hold
 * steps) to {@link Bounds#NESTING} levels.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("One step, of exactly one kind: a task (service + command), parallel, choice, map, workflow (a child), wait or delay.")
public class StepSpec {

  @JsonPropertyDescription("Step name, unique in the whole Workflow (nested steps included); shown in the instance's history.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("Task: the WorkerService (its service name) that runs the step.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String service;

  @JsonPropertyDescription("Task: the command of that service to send.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String command;

  @JsonPropertyDescription("Task: the action in the result events' routing keys <entity>.<action>.<result>; defaults to the command.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String action;

  @JsonPropertyDescription("Task (or child workflow): how long to wait for a result (for the child's end), e.g. 30s or 5m. "
      + "Without it the step waits indefinitely.")
  @Pattern(BatonDuration.PATTERN)
  @Size(max = Bounds.DURATION)
  private String timeout;

  @JsonPropertyDescription("Task: what to do on timeout: Fail (the default; reason Timeout) or Redispatch (send the command "
      + "again, up to maxDispatches).")
  private OnTimeout onTimeout;

  @JsonPropertyDescription("Task: with onTimeout: Redispatch, how many times the command is sent in all before the step fails.")
  @Min(1)
  @Max(100)
  private Integer maxDispatches;

  @JsonPropertyDescription("Task: a command of the same service that undoes this step, sent when a later step fails and onFailure is Compensate.")
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String compensate;

  @JsonPropertyDescription("Task: the command's input, key by key, each a CEL expression over 'input' (the instance's "
      + "input) and 'steps' (name -> {status, output} of the finished steps), e.g. address: \"input.address\". "
      + "Without it the command gets the instance's input with the earlier steps' outputs merged in.")
  @Size(max = Bounds.INPUT_ENTRIES)
  private Map<String, @Size(max = Bounds.EXPRESSION) String> input;

  @JsonPropertyDescription("Parallel: the branches, started together; the step ends when every branch has ended.")
  @Size(max = Bounds.BRANCHES)
  private List<BranchSpec> parallel;

  @JsonPropertyDescription("Choice: the cases in order; the steps of the first whose 'when' holds run.")
  @Size(max = Bounds.CASES)
  private List<CaseSpec> choice;

  @JsonPropertyDescription("Choice: the steps run when no case holds (none: the choice just ends).")
  @Size(max = Bounds.NESTED_STEPS)
  @ListMap(keys = "name")
  private List<StepSpec> otherwise;

  @JsonPropertyDescription("Child workflow: the Workflow of this namespace to start (business key <parent id>/<step>); "
      + "the step waits for its end and outputs its outputs. With input (a mapping, as a task's) and timeout.")
  @Pattern(Bounds.OBJECT_NAME_PATTERN)
  @Size(max = Bounds.OBJECT_NAME)
  private String workflow;

  @JsonPropertyDescription("Map: the same steps once per item of a list evaluated at run time; iterations show as "
      + "<step>[<index>].")
  private MapSpec map;

  @JsonPropertyDescription("Wait: completes when the instance receives the signal; its output is the signal's body.")
  private WaitSpec wait;

  @JsonPropertyDescription("Delay: a durable timer, e.g. 2s or 1h; the step completes when it has passed.")
  @Pattern(BatonDuration.PATTERN)
  @Size(max = Bounds.DURATION)
  private String delay;

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

  public Map<String, String> getInput() {
    return input;
  }

  public void setInput(Map<String, String> input) {
    this.input = input;
  }

  public List<BranchSpec> getParallel() {
    return parallel;
  }

  public void setParallel(List<BranchSpec> parallel) {
    this.parallel = parallel;
  }

  public List<CaseSpec> getChoice() {
    return choice;
  }

  public void setChoice(List<CaseSpec> choice) {
    this.choice = choice;
  }

  public List<StepSpec> getOtherwise() {
    return otherwise;
  }

  public void setOtherwise(List<StepSpec> otherwise) {
    this.otherwise = otherwise;
  }

  public String getWorkflow() {
    return workflow;
  }

  public void setWorkflow(String workflow) {
    this.workflow = workflow;
  }

  public MapSpec getMap() {
    return map;
  }

  public void setMap(MapSpec map) {
    this.map = map;
  }

  public WaitSpec getWait() {
    return wait;
  }

  public void setWait(WaitSpec wait) {
    this.wait = wait;
  }

  public String getDelay() {
    return delay;
  }

  public void setDelay(String delay) {
    this.delay = delay;
  }
}
