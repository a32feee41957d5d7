package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.contract.InstanceOutcome;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How an instance ended, read off the transition that ended it: what its outcome event tells subscribers
 * (docs/message-contract.md#instance-outcomes). A transition ends an instance when it moves it to a status that is
 * not active; every such transition is an ending of its own (a retried instance that ends again ends twice).
 *
 * @param outcome the routing key's last word
 * @param outputs the outputs of the steps that succeeded, by step name: what the API's {@code outputs} shows once the
 *     transition is written (compensations left out; a later attempt's output wins)
 */
public record Ending(InstanceOutcome outcome, ObjectNode outputs) {

  /**
   * The ending {@code transition} makes, or empty when the instance goes on (or nothing moved).
   *
   * @param before the instance's step rows the transition was decided on
   */
  public static Optional<Ending> of(List<StepState> before, Transition transition) {
    if (!transition.finishes()) {
      return Optional.empty();
    }
    return Optional.of(new Ending(outcomeOf(transition.status()), outputs(before, transition.rows())));
  }

  private static InstanceOutcome outcomeOf(InstanceStatus status) {
    return switch (status) {
      case SUCCEEDED -> InstanceOutcome.SUCCEEDED;
      case FAILED -> InstanceOutcome.FAILED;
      case COMPENSATED -> InstanceOutcome.COMPENSATED;
      case CANCELLED -> InstanceOutcome.CANCELLED;
      case RUNNING, COMPENSATING -> throw new IllegalArgumentException("an instance " + status + " has not ended");
    };
  }

  /** The rows as the transition leaves them (its updates in place of the rows they update, its new rows last). */
  private static ObjectNode outputs(List<StepState> before, List<StepState> written) {
    Map<Long, StepState> updated = new LinkedHashMap<>();
    List<StepState> inserted = new ArrayList<>();
    for (StepState s : written) {
      if (s.id() == null) {
        inserted.add(s);
      } else {
        updated.put(s.id(), s);
      }
    }
    List<StepState> after = new ArrayList<>(before.size() + inserted.size());
    for (StepState s : before) {
      after.add(updated.getOrDefault(s.id(), s));
    }
    after.addAll(inserted);
    ObjectNode outputs = JsonNodeFactory.instance.objectNode();
    for (StepState s : after) {
      if (!s.isCompensation() && s.iteration() < 0 && s.status() == StepStatus.SUCCEEDED && s.output() != null) {
        outputs.set(s.name(), s.output());
      }
    }
    return outputs;
  }
}
