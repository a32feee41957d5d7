package dev.baton.runtime.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.contract.InstanceOutcome;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Which transitions end an instance, and what its outcome event says about it. */
class EndingTest {

  static ObjectNode output(String key) {
    return JsonNodeFactory.instance.objectNode().put(key, true);
  }

  /** A loaded row (it has an id): an attempt of {@code name} that ended with {@code status}. */
  static StepState row(long id, String name, StepStatus status, ObjectNode output) {
    return new StepState(id, name, "task", null, 1, status, name, UUID.randomUUID(), 1, null, false, null, null, null,
        null, null, output, null, null, null, null, 0);
  }

  static Transition moved(InstanceStatus status, List<StepState> rows) {
    return new Transition(Transition.Kind.MOVED, null, status, Phase.FORWARD, false, rows, List.of(), List.of(), null,
        false, null, 0);
  }

  @ParameterizedTest(name = "an instance that becomes {0} ends {1}")
  @CsvSource({
    "SUCCEEDED,   SUCCEEDED",
    "FAILED,      FAILED",
    "COMPENSATED, COMPENSATED",
    "CANCELLED,   CANCELLED",
  })
  void everyStatusThatIsNotActiveIsAnEnding(InstanceStatus status, InstanceOutcome outcome) {
    assertThat(Ending.of(List.of(), moved(status, List.of()))).map(Ending::outcome).contains(outcome);
  }

  @ParameterizedTest(name = "an instance that becomes {0} has not ended")
  @CsvSource({"RUNNING", "COMPENSATING"})
  void anInstanceThatGoesOnHasNotEnded(InstanceStatus status) {
    assertThat(Ending.of(List.of(), moved(status, List.of()))).isEmpty();
  }

  @Test
  void aTransitionThatMovesNothingEndsNothing() {
    InstanceState failed = new InstanceState(UUID.randomUUID(), InstanceStatus.FAILED, Phase.FORWARD, false,
        JsonNodeFactory.instance.objectNode(), List.of(), List.of());
    assertThat(Ending.of(List.of(), Transition.nothing(Transition.Kind.STALE, "instance is FAILED", failed)))
        .isEmpty();
    assertThat(Ending.of(List.of(), Transition.nothing(Transition.Kind.UNCHANGED, null, failed))).isEmpty();
  }

  @Test
  void theOutputsAreThoseOfTheStepsThatSucceededAsTheTransitionLeavesThem() {
    StepState reserve = row(1, "reserve", StepStatus.SUCCEEDED, output("reserved"));
    StepState charge = row(2, "charge", StepStatus.RUNNING, null);
    StepState check = row(3, "check", StepStatus.FAILED, null);
    // The transition ends charge with its output and starts nothing: the instance succeeds.
    StepState charged = row(2, "charge", StepStatus.SUCCEEDED, output("charged"));

    Ending ending = Ending.of(List.of(reserve, charge, check), moved(InstanceStatus.SUCCEEDED, List.of(charged)))
        .orElseThrow();

    assertThat(ending.outputs().fieldNames()).toIterable().containsExactly("reserve", "charge");
    assertThat(ending.outputs().get("reserve")).isEqualTo(output("reserved"));
    assertThat(ending.outputs().get("charge")).as("ended by this very transition").isEqualTo(output("charged"));
  }

  @Test
  void compensationsAreNotOutputs() {
    StepState reserve = row(1, "reserve", StepStatus.SUCCEEDED, output("reserved"));
    StepState release = StepState.started("reserve/compensate", "task", null, 1, 1, "release", UUID.randomUUID(),
        null).ended(StepStatus.SUCCEEDED, output("released"), null, null, 2, "m-1");

    Ending ending = Ending.of(List.of(reserve), moved(InstanceStatus.COMPENSATED, List.of(release))).orElseThrow();

    assertThat(ending.outcome()).isEqualTo(InstanceOutcome.COMPENSATED);
    assertThat(ending.outputs().fieldNames()).toIterable().containsExactly("reserve");
  }

  @Test
  void aRetriedInstanceThatFailsAgainEndsAgain() {
    // A retry whose new attempt fails at once (its command would be too large, say) ends in the same transition.
    StepState first = row(1, "charge", StepStatus.FAILED, null);
    StepState second = StepState.started("charge", "task", null, 2, 1, "pay", null, null)
        .ended(StepStatus.FAILED, null, StateMachine.PAYLOAD_TOO_LARGE, "too large", 2, null);

    assertThat(Ending.of(List.of(first), moved(InstanceStatus.FAILED, List.of(second))))
        .map(Ending::outcome).contains(InstanceOutcome.FAILED);
  }
}
