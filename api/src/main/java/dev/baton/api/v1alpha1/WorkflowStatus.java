package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;
import java.util.List;

@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("What the operator has set up for the Workflow (written by the operator only): its orchestrator queue, the instance counts read from the runtime, and the conditions.")
public class WorkflowStatus extends BatonStatus {

  @JsonPropertyDescription("Number of steps.")
  private Integer steps;

  @JsonPropertyDescription("The queue the runtime reads this Workflow's events from.")
  @Size(max = Bounds.BROKER_NAME)
  private String queue;

  @JsonPropertyDescription("Where the runtime parks events it cannot use, with the reason in headers.")
  @Size(max = Bounds.BROKER_NAME)
  private String deadLetterQueue;

  @JsonPropertyDescription("Instances running or compensating, as last read from the runtime.")
  private Long running;

  @JsonPropertyDescription("Instances that succeeded, as last read from the runtime.")
  private Long succeeded;

  @JsonPropertyDescription("Instances that failed, as last read from the runtime.")
  private Long failed;

  @JsonPropertyDescription("Instances that failed and were compensated, as last read from the runtime.")
  private Long compensated;

  @JsonPropertyDescription("Instances cancelled, as last read from the runtime.")
  private Long cancelled;

  @JsonPropertyDescription("Each schedule's last and next fire, as last read from the runtime.")
  @Size(max = Bounds.SCHEDULES)
  private List<ScheduleStatus> schedules;

  @JsonPropertyDescription("The soonest next fire of all schedules, RFC 3339 (kubectl get workflows -o wide).")
  @Size(max = Bounds.NAME)
  private String nextFire;

  @JsonPropertyDescription("The latest fire any schedule handled, RFC 3339 (kubectl get workflows -o wide).")
  @Size(max = Bounds.NAME)
  private String lastFire;

  public List<ScheduleStatus> getSchedules() {
    return schedules;
  }

  public void setSchedules(List<ScheduleStatus> schedules) {
    this.schedules = schedules;
  }

  public String getNextFire() {
    return nextFire;
  }

  public void setNextFire(String nextFire) {
    this.nextFire = nextFire;
  }

  public String getLastFire() {
    return lastFire;
  }

  public void setLastFire(String lastFire) {
    this.lastFire = lastFire;
  }

  public Integer getSteps() {
    return steps;
  }

  public void setSteps(Integer steps) {
    this.steps = steps;
  }

  public String getQueue() {
    return queue;
  }

  public void setQueue(String queue) {
    this.queue = queue;
  }

  public String getDeadLetterQueue() {
    return deadLetterQueue;
  }

  public void setDeadLetterQueue(String deadLetterQueue) {
    this.deadLetterQueue = deadLetterQueue;
  }

  public Long getRunning() {
    return running;
  }

  public void setRunning(Long running) {
    this.running = running;
  }

  public Long getSucceeded() {
    return succeeded;
  }

  public void setSucceeded(Long succeeded) {
    this.succeeded = succeeded;
  }

  public Long getFailed() {
    return failed;
  }

  public void setFailed(Long failed) {
    this.failed = failed;
  }

  public Long getCompensated() {
    return compensated;
  }

  public void setCompensated(Long compensated) {
    this.compensated = compensated;
  }

  public Long getCancelled() {
    return cancelled;
  }

  public void setCancelled(Long cancelled) {
    this.cancelled = cancelled;
  }
}
