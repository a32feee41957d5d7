package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Everything the state machine decides from, read under the instance's row lock (so a decision cannot race with
 * another event, a timer or an API call for the same instance): the instance's status, every attempt of its steps,
 * and the signals stored for waits to come.
 *
 * @param cancelRequested a cancel asked for compensation first: the instance ends CANCELLED once it is done
 * @param signals signals not consumed yet, oldest first (only loaded for Workflows that wait for signals)
 * @param pastDeadline the instance's own deadline ({@code spec.timeout} from its start) has passed, by the
 *     database's clock: going forward, whatever the stimulus, the instance times out instead of starting anything
 * @param children the instances its child workflow steps started, by the name of the step's row (only loaded for
 *     Workflows with such steps)
 */
public record InstanceState(UUID id, InstanceStatus status, Phase phase, boolean cancelRequested, ObjectNode input,
    List<StepState> steps, List<StoredSignal> signals, boolean pastDeadline, Map<String, ChildState> children) {

  public InstanceState {
    steps = List.copyOf(steps);
    signals = List.copyOf(signals);
    children = Map.copyOf(children);
  }

  /** An instance without children (or whose children are not loaded). */
  public InstanceState(UUID id, InstanceStatus status, Phase phase, boolean cancelRequested, ObjectNode input,
      List<StepState> steps, List<StoredSignal> signals, boolean pastDeadline) {
    this(id, status, phase, cancelRequested, input, steps, signals, pastDeadline, Map.of());
  }

  /** An instance within its deadline, or without one. */
  public InstanceState(UUID id, InstanceStatus status, Phase phase, boolean cancelRequested, ObjectNode input,
      List<StepState> steps, List<StoredSignal> signals) {
    this(id, status, phase, cancelRequested, input, steps, signals, false);
  }

  /** A signal waiting for a {@code wait} step. */
  public record StoredSignal(long id, String name, JsonNode body) {}

  /**
   * The instance a child workflow step started, as it stands.
   *
   * @param forAttempt the attempt of the parent's step it answers: the one that started it, or the latest that
   *     retried it (an older end does not end a newer attempt)
   * @param outputs its outputs by step name, once it has succeeded; else null
   * @param reason why it did not succeed (its last error's reason), or null
   */
  public record ChildState(UUID id, InstanceStatus status, int forAttempt, JsonNode outputs, String reason) {}
}
