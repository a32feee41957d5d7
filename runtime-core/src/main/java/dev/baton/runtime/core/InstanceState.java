package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
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
 */
public record InstanceState(UUID id, InstanceStatus status, Phase phase, boolean cancelRequested, ObjectNode input,
    List<StepState> steps, List<StoredSignal> signals, boolean pastDeadline) {

  public InstanceState {
    steps = List.copyOf(steps);
    signals = List.copyOf(signals);
  }

  /** An instance within its deadline, or without one. */
  public InstanceState(UUID id, InstanceStatus status, Phase phase, boolean cancelRequested, ObjectNode input,
      List<StepState> steps, List<StoredSignal> signals) {
    this(id, status, phase, cancelRequested, input, steps, signals, false);
  }

  /** A signal waiting for a {@code wait} step. */
  public record StoredSignal(long id, String name, JsonNode body) {}
}
