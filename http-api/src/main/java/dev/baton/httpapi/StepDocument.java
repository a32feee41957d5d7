package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/**
 * One attempt of one step of an instance (a compensation is a task named {@code <step>/compensate}).
 *
 * @param name the step's name; in a map's iteration {@code <step>[<index>]}, the iteration itself
 *     {@code <map>[<index>]}
 * @param kind {@code task}, {@code parallel}, {@code choice}, {@code map}, {@code iteration} (one of a map's),
 *     {@code wait} or {@code delay}
 * @param parent the enclosing step's name (an iteration's steps: the iteration), or null at the top
 * @param action the command sent (tasks), or null
 * @param error why the attempt failed, or null
 * @param chosen the case a choice took ({@code otherwise} included); absent for other steps
 * @param late the answer that came after the attempt had timed out, ended {@code error} or was cancelled; absent
 *     when none came
 * @param commandMessageId the message id of the attempt's command (tasks), or null
 * @param itemCount how many items a map's list has (its iterations); absent for other steps and for a map whose
 *     items could not be evaluated
 */
public record StepDocument(
    String name,
    String kind,
    String parent,
    String action,
    String status,
    int attempt,
    Instant startedAt,
    Instant finishedAt,
    JsonNode output,
    StepError error,
    @JsonInclude(JsonInclude.Include.NON_NULL) String chosen,
    @JsonInclude(JsonInclude.Include.NON_NULL) JsonNode late,
    String commandMessageId,
    @JsonInclude(JsonInclude.Include.NON_NULL) Integer itemCount) {

  /** The suffix of a compensation's name. */
  public static final String COMPENSATION_SUFFIX = "/compensate";

  /** Why an attempt failed: the worker's error code (or the runtime's: {@code Timeout}, ...) and reason. */
  public record StepError(String code, String reason) {}

  @JsonIgnore // derived from the name: not a field of the document
  public boolean isCompensation() {
    return name != null && name.endsWith(COMPENSATION_SUFFIX);
  }
}
