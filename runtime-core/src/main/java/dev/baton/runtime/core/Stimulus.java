package dev.baton.runtime.core;

import java.util.Set;
import java.util.UUID;

/** What can move an instance: the state machine takes one at a time, on the locked instance. */
public sealed interface Stimulus {

  /** A new instance: its first steps start. */
  record Start() implements Stimulus {}

  /** A worker's result for one attempt of a task or of its compensation. */
  record Result(InboundEvent event) implements Stimulus {}

  /** Steps in flight whose deadline has passed (those marked {@link StepState#due()}): timeouts and delays. */
  record TimersDue() implements Stimulus {}

  /**
   * The instance's own deadline ({@code spec.timeout}, from its start) has passed, by the database's clock
   * (docs/design.md#runtime-semantics, "the whole instance's deadline"). Going forward, it fails with reason
   * {@code Timeout} (errorCode {@link StateMachine#INSTANCE_TIMEOUT}) and {@code onFailure} applies; a compensation
   * already running is left to finish; an instance that has ended is left as it is.
   */
  record InstanceTimedOut() implements Stimulus {}

  /** A child instance of the instance has moved (ended, say): the steps that wait for it may go on. */
  record ChildrenChanged() implements Stimulus {}

  /**
   * The child instance of a child workflow step's row could not be started (its Workflow does not exist, or its spec
   * cannot run): the attempt fails with the reason.
   */
  record ChildRefused(String row, String reason) implements Stimulus {}

  /**
   * Undo a SUCCEEDED instance's completed steps, newest first, as a failure would have: it is the child of a step
   * its parent compensates (docs/design.md#workflow-language, child workflow). It ends COMPENSATED (or FAILED when a
   * compensation fails).
   */
  record Compensate() implements Stimulus {}

  /** A signal was stored for the instance: a wait for it may go on. */
  record SignalStored(String signal) implements Stimulus {}

  /**
   * Stop the instance; with {@code compensate}, undo the completed and unknown-outcome steps first.
   *
   * @param withdrawn the message ids of the instance's commands that were still unpublished and have been withdrawn
   *     (a worker will never receive them); any other command in flight may already be at a worker, so its step is
   *     awaited (its answer, or its deadline) before the compensation, which must never overtake it
   */
  record Cancel(boolean compensate, Set<UUID> withdrawn) implements Stimulus {

    public Cancel {
      withdrawn = Set.copyOf(withdrawn);
    }

    /** A cancel that knows of no withdrawn command: every task in flight counts as sent. */
    public Cancel(boolean compensate) {
      this(compensate, Set.of());
    }

    /**
     * Whether this cancel stops what the instance is doing, so that its unpublished commands are withdrawn first:
     * not when it asks for compensation of an instance already undoing its steps (a second cancel, or a parent's
     * drive cancelling its child again), which goes on as it was; withdrawing then would take back the commands of
     * the steps being undone, and those steps would wait for an answer that never comes.
     */
    public boolean stops(InstanceStatus status, Phase phase) {
      return status.isActive() && !(compensate && phase == Phase.COMPENSATION);
    }
  }

  /** Send the failed steps (or the failed compensation) of a FAILED instance again, as new attempts. */
  record Retry() implements Stimulus {}

  /**
   * The instance cannot or may not go on (its Workflow was deleted with {@code fail-running}, say): it fails at once
   * with this error, its attempts in flight cancelled and its unpublished commands withdrawn.
   */
  record Abandon(String errorCode, String reason) implements Stimulus {}

  /**
   * The broker refused the command of a task attempt (docs/design.md#runtime-semantics, "refused commands fail
   * fast"): over its {@code max_message_size}, not permitted, unroutable for good. The command never reached a
   * worker, so the attempt in flight that sent it fails at once with the broker's reason; no attempt in flight sent
   * it (it timed out meanwhile, the instance ended): nothing changes.
   *
   * @param commandMessageId the refused command's message id, which names the attempt that sent it
   * @param errorCode {@link StateMachine#PAYLOAD_TOO_LARGE} when the broker said the message was too large, else
   *     {@link StateMachine#COMMAND_REFUSED}
   * @param reason the broker's reason
   */
  record Refused(UUID commandMessageId, String errorCode, String reason) implements Stimulus {}
}
