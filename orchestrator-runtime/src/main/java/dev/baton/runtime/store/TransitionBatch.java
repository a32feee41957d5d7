package dev.baton.runtime.store;

import dev.baton.runtime.engine.ExecutionStatus;
import dev.baton.runtime.engine.InstanceStatus;
import dev.baton.runtime.engine.Phase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The writes of one or more transitions, collected while deciding and sent together by {@link TransitionWriter}: a
 * batch of events costs a handful of round trips instead of a handful per event.
 */
public final class TransitionBatch {

  /** Ends the execution in flight. */
  public record ExecutionEnd(long executionId, ExecutionStatus status, String outputJson, String errorCode,
      String errorReason) {}

  /** A new execution (its id is allocated at flush), its command, and the instance pointing at it. */
  public record Dispatch(UUID instanceId, InstanceStatus status, Phase phase, int stepIndex, String stepName,
      String action, int attempt, int dispatches, Duration timeout, UUID commandMessageId, OutboxMessage command,
      String outputsJson, String lastErrorJson) {}

  /** The instance ends. */
  public record Finish(UUID instanceId, InstanceStatus status, String outputsJson, String lastErrorJson) {}

  final List<ExecutionEnd> ends = new ArrayList<>();
  final List<Dispatch> dispatches = new ArrayList<>();
  final List<Finish> finishes = new ArrayList<>();

  public void end(ExecutionEnd e) {
    ends.add(e);
  }

  public void dispatch(Dispatch d) {
    dispatches.add(d);
  }

  public void finish(Finish f) {
    finishes.add(f);
  }
}
