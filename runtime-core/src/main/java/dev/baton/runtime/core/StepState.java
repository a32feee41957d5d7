package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.workflow.IterationNames;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * One attempt of a step, as a row of {@code instance_step}: what the state machine reads (every attempt of the
 * instance, under its row lock) and writes (a new row when {@link #id} is null, else that row updated).
 *
 * @param id the row's id; null for a row the state machine starts
 * @param name the step's name; a compensation is {@code <step>/compensate}
 * @param kind {@code task}, {@code parallel}, {@code choice}, {@code map}, {@code iteration} (one of a map's),
 *     {@code wait} or {@code delay}
 * @param parent the enclosing step's name, or null at the top level
 * @param action a task's action (its events carry it); null for other kinds
 * @param commandMessageId a task's command; null for other kinds
 * @param dispatches sends of this step since it started or was retried by hand
 * @param timeout for a new row: the deadline from now (null: none); not read back
 * @param due a loaded row in flight whose deadline has passed (by the database's clock)
 * @param chosen a choice's case: "0", "1", ... or "otherwise"
 * @param items a map's list, as its {@code items} yielded it when the map started; null for other kinds
 * @param finishSeq the order in which the instance's steps ended
 * @param resultMessageId the event that ended it
 * @param late a result that came after the attempt had ended (as JSON), or null
 * @param elapsedMillis for a loaded row in flight: time since it started, by the database's clock
 */
public record StepState(
    Long id,
    String name,
    String kind,
    String parent,
    int attempt,
    StepStatus status,
    String action,
    UUID commandMessageId,
    int dispatches,
    Duration timeout,
    boolean due,
    String chosen,
    JsonNode items,
    Integer finishSeq,
    String resultMessageId,
    JsonNode late,
    JsonNode output,
    String errorCode,
    String errorReason,
    Instant startedAt,
    Instant finishedAt,
    long elapsedMillis) {

  /** The suffix of a compensation's name: compensations show as tasks named {@code <step>/compensate}. */
  public static final String COMPENSATION_SUFFIX = "/compensate";

  /** A new attempt, in flight (or already ended, with {@link #ended}). */
  public static StepState started(String name, String kind, String parent, int attempt, int dispatches, String action,
      UUID commandMessageId, Duration timeout) {
    return new StepState(null, name, kind, parent, attempt, StepStatus.RUNNING, action, commandMessageId, dispatches,
        timeout, false, null, null, null, null, null, null, null, null, null, null, 0);
  }

  StepState ended(StepStatus to, JsonNode out, String code, String reason, int seq, String messageId) {
    return new StepState(id, name, kind, parent, attempt, to, action, commandMessageId, dispatches, timeout, false,
        chosen, items, seq, messageId, late, out, code, reason, startedAt, finishedAt, elapsedMillis);
  }

  StepState choosing(String choice) {
    return new StepState(id, name, kind, parent, attempt, status, action, commandMessageId, dispatches, timeout, due,
        choice, items, finishSeq, resultMessageId, late, output, errorCode, errorReason, startedAt, finishedAt,
        elapsedMillis);
  }

  /** A container (parallel, choice) that failed with a step inside it runs again when that step is retried. */
  StepState reopened() {
    return new StepState(id, name, kind, parent, attempt, StepStatus.RUNNING, action, commandMessageId, dispatches,
        null, false, chosen, items, null, null, late, null, null, null, startedAt, null, 0);
  }

  /** A task attempt whose command was never composed (its input mapping failed). */
  StepState withoutCommand() {
    return new StepState(id, name, kind, parent, attempt, status, action, null, dispatches, timeout, due, chosen,
        items, finishSeq, resultMessageId, late, output, errorCode, errorReason, startedAt, finishedAt, elapsedMillis);
  }

  StepState withLate(JsonNode result) {
    return new StepState(id, name, kind, parent, attempt, status, action, commandMessageId, dispatches, timeout, due,
        chosen, items, finishSeq, resultMessageId, result, output, errorCode, errorReason, startedAt, finishedAt,
        elapsedMillis);
  }

  /** A map that has evaluated its items. */
  StepState withItems(JsonNode list) {
    return new StepState(id, name, kind, parent, attempt, status, action, commandMessageId, dispatches, timeout, due,
        chosen, list, finishSeq, resultMessageId, late, output, errorCode, errorReason, startedAt, finishedAt,
        elapsedMillis);
  }

  /** The step of the definition this row is an attempt of: without {@code /compensate} and an iteration's index. */
  public String definitionName() {
    return IterationNames.base(stepName());
  }

  /** The map iteration this row belongs to (its index), or -1 outside any map's iterations. */
  public int iteration() {
    return IterationNames.index(stepName());
  }

  /** Rows that hold other steps: a parallel, a choice, a map and a map's iteration. */
  public boolean isGroup() {
    return kind.equals("parallel") || kind.equals("choice") || kind.equals("map") || kind.equals("iteration");
  }

  public boolean isCompensation() {
    return name.endsWith(COMPENSATION_SUFFIX);
  }

  /** The step a compensation undoes; the step's own name otherwise. */
  public String stepName() {
    return isCompensation() ? name.substring(0, name.length() - COMPENSATION_SUFFIX.length()) : name;
  }

  public boolean isRunning() {
    return status == StepStatus.RUNNING;
  }

  static String compensationOf(String step) {
    return step + COMPENSATION_SUFFIX;
  }
}
