package dev.baton.runtime.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.store.PauseStore.Kind;
import dev.baton.runtime.store.PauseStore.Pause;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PausesPlanTest {

  static final Instant T = Instant.parse("2026-12-05T12:00:00Z");

  static Pause workflow(String ns, String name, Instant at) {
    return new Pause(Kind.WORKFLOW, ns, name, null, at);
  }

  static Pause service(String ns, String name, Instant at) {
    return new Pause(Kind.SERVICE, ns, name, name + ".command.topic.ex", at);
  }

  @Test
  void aNewPauseIsRecordedAndItsStepsParked() {
    Pauses.Plan plan = Pauses.plan(List.of(workflow("shop", "orders", null)), List.of(), p -> true);

    assertThat(plan.record()).containsExactly(workflow("shop", "orders", null));
    assertThat(plan.park()).containsExactly(workflow("shop", "orders", null));
    assertThat(plan.end()).isEmpty();
  }

  @Test
  void aPauseStillAskedForKeepsParkingTheStepsThatCameToWait() {
    Pause recorded = service("shop", "payment", T);
    Pauses.Plan plan = Pauses.plan(List.of(service("shop", "payment", null)), List.of(recorded), p -> true);

    assertThat(plan.record()).isEmpty();
    assertThat(plan.end()).isEmpty();
    assertThat(plan.park()).containsExactly(recorded);
  }

  @Test
  void aPauseNoLongerAskedForEndsOnlyWhereThisRuntimeSeesItsResource() {
    Pause seen = workflow("shop", "orders", T);
    Pause elsewhere = workflow("other-team", "orders", T);
    Pauses.Plan plan = Pauses.plan(List.of(), List.of(seen, elsewhere), p -> p.namespace().equals("shop"));

    assertThat(plan.end()).containsExactly(seen);
    assertThat(plan.park()).as("a pause of another runtime's namespace holds on").containsExactly(elsewhere);
  }

  @Test
  void aWorkflowAndAServiceOfTheSameNameAreDifferentPauses() {
    Pauses.Plan plan = Pauses.plan(List.of(service("shop", "orders", null)), List.of(workflow("shop", "orders", T)),
        p -> true);

    assertThat(plan.record()).containsExactly(service("shop", "orders", null));
    assertThat(plan.end()).containsExactly(workflow("shop", "orders", T));
  }
}
