package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import dev.baton.api.crd.ListMap;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("What the Workflow runs: the business entity, the steps in order (tasks, parallel branches, choices, "
    + "waits for signals, delays), and what happens when a step fails.")
public class WorkflowSpec extends TolerantSpec {

  @JsonPropertyDescription("The business entity, first word of every event routing key <entity>.<action>.<result>, e.g. 'order'.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String entity;

  @JsonPropertyDescription("When a step fails: Compensate (undo completed steps in reverse order) or Stop.")
  @Default("Compensate")
  private OnFailure onFailure = OnFailure.Compensate;

  @JsonPropertyDescription("The steps, run one after the other in this order; each is a task, parallel, choice, wait or "
      + "delay. Step names are unique across the Workflow, nested steps included (the API server refuses a duplicate "
      + "within one list, the operator any other: Ready=False, InvalidSpec).")
  @Required
  @Size(min = 1, max = Bounds.STEPS)
  @ListMap(keys = "name")
  private List<StepSpec> steps = new ArrayList<>();

  @JsonPropertyDescription("How long the whole instance may run, e.g. 2h or 15m, counted from its start (a retry counts "
      + "it again from the retry). Past it the instance fails with reason Timeout (errorCode InstanceTimeout), its "
      + "steps in flight timed out, and onFailure applies (a compensation already running finishes). A task's "
      + "command never carries a deadline past it. Without it the instance has no deadline of its own.")
  @Pattern(BatonDuration.PATTERN)
  @Size(max = Bounds.DURATION)
  private String timeout;

  @JsonPropertyDescription("Type of the orchestrator queue q.orchestrator.<name>: classic or quorum. Fixed once created: "
      + "RabbitMQ cannot change the type of a queue.")
  @Default("classic")
  @ValidationRule(value = "self == oldSelf", message = QueueSettings.TYPE_IS_IMMUTABLE)
  private QueueKind queueType = QueueKind.CLASSIC;

  @JsonPropertyDescription("On deletion: Retain keeps the orchestrator queue while it holds messages, Delete removes it.")
  @Default("Retain")
  private DeletionPolicy deletionPolicy = DeletionPolicy.Retain;

  @JsonPropertyDescription("true pauses the Workflow: no command of its instances is dispatched (they wait, in order), "
      + "and the timers of its waiting steps (waits, delays, steps whose command waits) stop; starts and schedule fires "
      + "are accepted and wait. A command already at a worker keeps its deadline, spec.timeout keeps counting. false "
      + "carries on where it stopped: each waiting command is sent once, with its remaining time.")
  @Default("false")
  private Boolean paused;

  @JsonPropertyDescription("Starts on a clock (cron in a time zone, or every). Each fire starts exactly one instance, "
      + "business key <schedule>@<fire time, RFC 3339 UTC>, whatever the number of runtimes. Changing the schedules "
      + "or paused does not make a new revision: running instances keep theirs.")
  @Size(max = Bounds.SCHEDULES)
  @ListMap(keys = "name")
  private List<ScheduleSpec> schedules;

  public String getEntity() {
    return entity;
  }

  public void setEntity(String entity) {
    this.entity = entity;
  }

  public OnFailure getOnFailure() {
    return onFailure;
  }

  public void setOnFailure(OnFailure onFailure) {
    this.onFailure = onFailure == null ? OnFailure.Compensate : onFailure;
  }

  public List<StepSpec> getSteps() {
    return steps;
  }

  public void setSteps(List<StepSpec> steps) {
    this.steps = steps == null ? new ArrayList<>() : steps;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }

  public Boolean getPaused() {
    return paused;
  }

  public void setPaused(Boolean paused) {
    this.paused = paused;
  }

  /** Whether the Workflow is paused ({@code paused: true}). */
  @JsonIgnore
  public boolean isPausedNow() {
    return Boolean.TRUE.equals(paused);
  }

  public List<ScheduleSpec> getSchedules() {
    return schedules;
  }

  public void setSchedules(List<ScheduleSpec> schedules) {
    this.schedules = schedules;
  }

  public QueueKind getQueueType() {
    return queueType;
  }

  public void setQueueType(QueueKind queueType) {
    this.queueType = queueType == null ? QueueKind.CLASSIC : queueType;
  }

  public DeletionPolicy getDeletionPolicy() {
    return deletionPolicy;
  }

  public void setDeletionPolicy(DeletionPolicy deletionPolicy) {
    this.deletionPolicy = deletionPolicy == null ? DeletionPolicy.Retain : deletionPolicy;
  }
}
