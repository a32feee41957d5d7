package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.crd.OneOfRequired;
import dev.baton.contract.BatonDuration;
import dev.baton.contract.Names;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** Starts of a Workflow on a clock: a cron expression in a time zone, or a fixed interval. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonClassDescription("Starts instances on a clock: cron (with timeZone) or every. Each fire starts one instance with "
    + "business key <name>@<fire time, RFC 3339 UTC>, whatever the number of runtimes and their restarts.")
@OneOfRequired({"name,cron", "name,every"})
public class ScheduleSpec {

  @JsonPropertyDescription("The schedule's name, unique in the Workflow; the first part of its instances' business keys.")
  @Required
  @Pattern(Names.TOKEN_PATTERN)
  @Size(max = Bounds.NAME)
  private String name;

  @JsonPropertyDescription("A Unix cron expression of five fields (minute hour day-of-month month day-of-week), e.g. "
      + "'0 2 * * *' for 02:00 every day; read in timeZone. Exactly one of cron and every.")
  @Size(max = Bounds.CRON)
  private String cron;

  @JsonPropertyDescription("The IANA time zone cron is read in, e.g. Europe/Berlin (default UTC). A fire that daylight "
      + "saving skips does not happen; one it repeats happens once.")
  @Size(max = Bounds.NAME)
  private String timeZone;

  @JsonPropertyDescription("A fixed interval instead of cron, e.g. 30s or 1h (at least 1s): fires at the multiples of "
      + "it since 1970-01-01T00:00:00Z, so every runtime agrees on the fire times.")
  @Pattern(BatonDuration.PATTERN)
  @Size(max = Bounds.DURATION)
  private String every;

  @JsonPropertyDescription("The input of each instance the schedule starts: a JSON object, as given (default {}).")
  @PreserveUnknownFields
  private JsonNode input;

  @JsonPropertyDescription("A fire while the instance of the previous one still runs: Skip it (default), Allow it to "
      + "start beside it, or BufferOne (start the first such fire when the running one ends, skip the rest).")
  @Default("Skip")
  private Overlap overlap = Overlap.Skip;

  @JsonPropertyDescription("How late a missed fire (no runtime was up, or the Workflow was not Ready) may still start, "
      + "e.g. 10m (default 1m); older missed fires are skipped.")
  @Pattern(BatonDuration.PATTERN)
  @Size(max = Bounds.DURATION)
  private String catchupWindow;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public String getCron() {
    return cron;
  }

  public void setCron(String cron) {
    this.cron = cron;
  }

  public String getTimeZone() {
    return timeZone;
  }

  public void setTimeZone(String timeZone) {
    this.timeZone = timeZone;
  }

  public String getEvery() {
    return every;
  }

  public void setEvery(String every) {
    this.every = every;
  }

  public JsonNode getInput() {
    return input;
  }

  public void setInput(JsonNode input) {
    this.input = input;
  }

  public Overlap getOverlap() {
    return overlap;
  }

  public void setOverlap(Overlap overlap) {
    this.overlap = overlap == null ? Overlap.Skip : overlap;
  }

  public String getCatchupWindow() {
    return catchupWindow;
  }

  public void setCatchupWindow(String catchupWindow) {
    this.catchupWindow = catchupWindow;
  }
}
