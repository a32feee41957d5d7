package dev.baton.reliability.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.reliability.history.History.Effect;
import dev.baton.reliability.history.History.Instance;
import dev.baton.reliability.history.History.OutboxRow;
import dev.baton.reliability.history.History.StepAttempt;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checker against hand-made histories: a sound one passes, and each rule catches the history that breaks it. */
class HistoryCheckerTest {

  static final Instant T0 = Instant.parse("2026-12-04T10:00:00Z");
  static final Map<String, String> SAGA = Map.of("reserve", "release", "charge", "refund");
  final HistoryChecker checker = new HistoryChecker(Duration.ofMinutes(3));

  final List<Instance> instances = new ArrayList<>();
  final List<StepAttempt> steps = new ArrayList<>();
  final List<Effect> effects = new ArrayList<>();
  final List<OutboxRow> outbox = new ArrayList<>();
  final List<String> accepted = new ArrayList<>();

  @Test
  void aSoundHistoryHasNoViolation() {
    instance("i1", "SUCCEEDED", false, 10);
    effect("i1", "reserve", "reserve", 1, 1);
    effect("i1", "charge", "charge", 1, 2);
    effect("i1", "ship", "ship", 1, 3);
    instance("i2", "COMPENSATED", false, 20);
    effect("i2", "reserve", "reserve", 1, 1);
    step("i2", "charge", 1, "TIMED_OUT");
    step("i2", "charge", 2, "TIMED_OUT");
    effect("i2", "charge", "charge", 1, 2); // landed before attempt 1's deadline, its answer did not
    effect("i2", "charge", "charge", 2, 5);
    effect("i2", "charge", "refund", 1, 9);
    effect("i2", "reserve", "release", 1, 10);
    instance("i3", "CANCELLED", false, 5); // cancelled without compensation: nothing to undo
    effect("i3", "reserve", "reserve", 1, 1);

    assertThat(check()).isEmpty();
  }

  @Test
  void anAcceptedStartWithoutInstanceOrAnInstanceStillRunningBreaksRuleA() {
    accepted.add("lost-key");
    instance("i1", "RUNNING", false, -1);
    instance("i2", "SUCCEEDED", false, 240); // ended, but after the bound

    assertThat(check()).extracting(Violation::rule, Violation::businessKey)
        .containsExactlyInAnyOrder(tuple(Rule.ENDED, "lost-key"), tuple(Rule.ENDED, "key-i1"),
            tuple(Rule.ENDED, "key-i2"));
  }

  @Test
  void theSameAttemptAppliedTwiceBreaksRuleB() {
    instance("i1", "SUCCEEDED", false, 10);
    effect("i1", "reserve", "reserve", 1, 1);
    effect("i1", "reserve", "reserve", 1, 2);

    assertThat(check()).singleElement().satisfies(v -> {
      assertThat(v.rule()).isEqualTo(Rule.ONCE);
      assertThat(v.evidence()).contains("2 effects of reserve reserve attempt 1");
    });
  }

  @Test
  void aStepAppliedInTwoAttemptsThatWereNotReSentBreaksRuleB() {
    instance("i1", "SUCCEEDED", false, 10);
    step("i1", "charge", 1, "SUCCEEDED"); // answered: attempt 2 should never have run
    step("i1", "charge", 2, "SUCCEEDED");
    effect("i1", "charge", "charge", 1, 1);
    effect("i1", "charge", "charge", 2, 2);

    assertThat(check()).singleElement().satisfies(v -> {
      assertThat(v.rule()).isEqualTo(Rule.ONCE);
      assertThat(v.evidence()).contains("attempt 1 was not re-sent after a timeout");
    });
  }

  @Test
  void aForwardEffectAfterItsCompensationBreaksRuleC() {
    instance("i1", "COMPENSATED", false, 20);
    effect("i1", "reserve", "release", 1, 5);
    effect("i1", "reserve", "reserve", 1, 6); // the command ran after the undo had been done

    assertThat(check()).singleElement().satisfies(v -> {
      assertThat(v.rule()).isEqualTo(Rule.NOT_AFTER_COMPENSATION);
      assertThat(v.evidence()).contains("at or after its compensation");
    });
  }

  @Test
  void aCompensatedOrCompensatingCancelledInstanceWithAnEffectNotUndoneBreaksRuleD() {
    instance("i1", "COMPENSATED", false, 20);
    effect("i1", "reserve", "reserve", 1, 1);
    effect("i1", "charge", "charge", 1, 2);
    effect("i1", "charge", "refund", 1, 3); // reserve is never released
    instance("i2", "CANCELLED", true, 20);
    effect("i2", "reserve", "reserve", 1, 1);
    instance("i3", "FAILED", false, 20); // a compensation that failed leaves FAILED: not held to rule d
    effect("i3", "reserve", "reserve", 1, 1);

    assertThat(check()).extracting(Violation::rule, Violation::instanceId)
        .containsExactlyInAnyOrder(tuple(Rule.UNDONE, "i1"), tuple(Rule.UNDONE, "i2"));
  }

  @Test
  void aCommandLeftInTheOutboxOfAnEndedInstanceBreaksRuleE() {
    instance("i1", "CANCELLED", false, 20);
    instance("i2", "RUNNING", false, -1);
    outbox.add(new OutboxRow(7, "i1", "stock.reserve", T0.plusSeconds(1)));
    outbox.add(new OutboxRow(8, "i2", "stock.reserve", T0.plusSeconds(1))); // still running: rule a, not e

    assertThat(check()).extracting(Violation::rule, Violation::instanceId)
        .containsExactlyInAnyOrder(tuple(Rule.OUTBOX_EMPTY, "i1"), tuple(Rule.ENDED, "i2"));
  }

  @Test
  void anAttemptTheRuntimeSawSucceedWithoutItsEffectBreaksRuleF() {
    instance("i1", "SUCCEEDED", false, 10);
    step("i1", "reserve", 1, "SUCCEEDED");
    effect("i1", "reserve", "reserve", 1, 1);
    step("i1", "charge", 1, "SUCCEEDED"); // answered success, but no effect was ever committed
    instance("i2", "COMPENSATED", false, 10);
    step("i2", "reserve", 1, "SUCCEEDED");
    effect("i2", "reserve", "reserve", 1, 1);
    steps.add(new StepAttempt("i2", "reserve/compensate", "task", 1, "SUCCEEDED", "release", T0, T0, null, false));
    effect("i2", "reserve", "release", 1, 2);

    assertThat(check()).singleElement().satisfies(v -> {
      assertThat(v.rule()).isEqualTo(Rule.APPLIED);
      assertThat(v.evidence()).contains("attempt 1 of charge (charge) SUCCEEDED");
    });
  }

  private List<Violation> check() {
    return checker.check(new History(Set.copyOf(accepted), instances, steps, effects, outbox));
  }

  /** An instance of the saga created at T0, ended {@code endedAfter} s later (negative: not ended). */
  private void instance(String id, String status, boolean cancelCompensate, int endedAfter) {
    accepted.add("key-" + id);
    instances.add(new Instance(id, "key-" + id, "saga", 1, status, cancelCompensate, T0,
        endedAfter < 0 ? null : T0.plusSeconds(endedAfter), SAGA));
  }

  private void step(String instance, String name, int attempt, String status) {
    steps.add(new StepAttempt(instance, name, "task", attempt, status, name, T0, T0.plusSeconds(attempt), null,
        false));
  }

  /** An effect {@code at} seconds after T0. */
  private void effect(String instance, String step, String action, int attempt, int at) {
    effects.add(new Effect(instance, step, action, attempt, instance + "-" + step + "-" + action + "-" + attempt
        + "-" + at, T0.plusSeconds(at), T0.plusSeconds(at + 3)));
  }

  private static org.assertj.core.groups.Tuple tuple(Object... values) {
    return org.assertj.core.groups.Tuple.tuple(values);
  }
}
