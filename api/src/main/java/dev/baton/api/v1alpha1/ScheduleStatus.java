package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Size;

/** Where one schedule stands, as last read from the runtime. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ScheduleStatus {

  @JsonPropertyDescription("The schedule's name.")
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("The last fire the runtime handled (started, skipped or missed), RFC 3339.")
  @Size(max = Bounds.NAME)
  private String lastFire;

  @JsonPropertyDescription("The next fire, RFC 3339.")
  @Size(max = Bounds.NAME)
  private String nextFire;

  @JsonPropertyDescription("The business key of the last instance the schedule started.")
  @Size(max = Bounds.MESSAGE)
  private String lastBusinessKey;

  @JsonPropertyDescription("A fire waiting for the running instance to end (overlap BufferOne), RFC 3339.")
  @Size(max = Bounds.NAME)
  private String bufferedFire;

  public ScheduleStatus() {}

  public ScheduleStatus(String name, String lastFire, String nextFire, String lastBusinessKey, String bufferedFire) {
    this.name = name;
    this.lastFire = lastFire;
    this.nextFire = nextFire;
    this.lastBusinessKey = lastBusinessKey;
    this.bufferedFire = bufferedFire;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getLastFire() {
    return lastFire;
  }

  public void setLastFire(String lastFire) {
    this.lastFire = lastFire;
  }

  public String getNextFire() {
    return nextFire;
  }

  public void setNextFire(String nextFire) {
    this.nextFire = nextFire;
  }

  public String getLastBusinessKey() {
    return lastBusinessKey;
  }

  public void setLastBusinessKey(String lastBusinessKey) {
    this.lastBusinessKey = lastBusinessKey;
  }

  public String getBufferedFire() {
    return bufferedFire;
  }

  public void setBufferedFire(String bufferedFire) {
    this.bufferedFire = bufferedFire;
  }
}
