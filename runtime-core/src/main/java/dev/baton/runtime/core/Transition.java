package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.workflow.Step;
import java.util.List;

/**
 * What the state machine decided for one stimulus: the step rows to write (new attempts and ended ones), the
 * commands to send, the signals consumed, and where the instance stands after it. Or, for an event or an API call
 * that changes nothing, why ({@link #kind} other than MOVED; a LATE result still writes its row).
 *
 * @param rows step rows to insert (id null) or update, each at most once
 * @param dispatches the commands of the task rows among {@code rows} that start in flight
 * @param signalsUsed signals consumed by waits
 * @param lastError the failure this transition records as the instance's last error, or null
 * @param withdrawCommands the instance's commands not yet published are withdrawn from the outbox (it ended, or a
 *     cancel stopped its steps in flight)
 * @param currentStep the step that started last (what the API shows as currentStep), or null when none started
 * @param childStarts the child instances to start (or, for a retried step, to retry), one per child workflow row
 *     among {@code rows} that starts in flight
 */
public record Transition(Kind kind, String reason, InstanceStatus status, Phase phase, boolean cancelRequested,
    List<StepState> rows, List<Dispatch> dispatches, List<SignalUse> signalsUsed, LastError lastError,
    boolean withdrawCommands, String currentStep, int currentAttempt, List<ChildStart> childStarts) {

  public enum Kind {
    /** The instance moved. */
    MOVED,
    /** The event was applied before (the same message id ended that attempt). */
    DUPLICATE,
    /** The event answers no attempt in flight (another step, an older attempt, a finished instance). */
    STALE,
    /** The event answers an attempt that had already timed out, errored or been cancelled: recorded on it only. */
    LATE,
    /** An API call the instance's status does not allow (a 409). */
    REFUSED,
    /** An API call that is already done (cancelling a cancelled instance). */
    UNCHANGED
  }

  /** A task row that starts in flight, and the input its command carries. */
  public record Dispatch(StepState row, Step.Task task, boolean compensation, JsonNode input,
      ObjectNode outputs) {}

  /**
   * A child workflow step's attempt that starts: the instance of {@code workflow} to start with this input (business
   * key {@code <parent id>/<row name>}), or to retry when a failed one has that key.
   */
  public record ChildStart(StepState row, String workflow, JsonNode input) {}

  /** A wait's use of a stored signal. */
  public record SignalUse(long signalId, String step) {}

  /** Which step, which attempt, and why: the instance's {@code lastError}. */
  public record LastError(String step, String kind, String action, int attempt, StepStatus status, String errorCode,
      String reason) {}

  public Transition {
    rows = List.copyOf(rows);
    dispatches = List.copyOf(dispatches);
    signalsUsed = List.copyOf(signalsUsed);
    childStarts = List.copyOf(childStarts);
  }

  /** A transition that starts no child instance. */
  public Transition(Kind kind, String reason, InstanceStatus status, Phase phase, boolean cancelRequested,
      List<StepState> rows, List<Dispatch> dispatches, List<SignalUse> signalsUsed, LastError lastError,
      boolean withdrawCommands, String currentStep, int currentAttempt) {
    this(kind, reason, status, phase, cancelRequested, rows, dispatches, signalsUsed, lastError, withdrawCommands,
        currentStep, currentAttempt, List.of());
  }

  public static Transition nothing(Kind kind, String reason, InstanceState s) {
    return new Transition(kind, reason, s.status(), s.phase(), s.cancelRequested(), List.of(), List.of(), List.of(),
        null, false, null, 0);
  }

  public boolean moved() {
    return kind == Kind.MOVED;
  }

  /** Whether anything is written (a move, or a late result recorded). */
  public boolean writes() {
    return kind == Kind.MOVED || kind == Kind.LATE;
  }

  public boolean finishes() {
    return moved() && !status.isActive();
  }
}
