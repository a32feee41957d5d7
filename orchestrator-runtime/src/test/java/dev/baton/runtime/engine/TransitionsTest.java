package dev.baton.runtime.engine;

import static dev.baton.runtime.engine.InstanceStatus.CANCELLED;
import static dev.baton.runtime.engine.InstanceStatus.COMPENSATED;
import static dev.baton.runtime.engine.InstanceStatus.COMPENSATING;
import static dev.baton.runtime.engine.InstanceStatus.FAILED;
import static dev.baton.runtime.engine.InstanceStatus.RUNNING;
import static dev.baton.runtime.engine.InstanceStatus.SUCCEEDED;
import static dev.baton.runtime.engine.Phase.COMPENSATION;
import static dev.baton.runtime.engine.Phase.FORWARD;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.contract.EventResult;
import dev.baton.runtime.engine.Decision.Change;
import dev.baton.runtime.engine.Decision.NoChange;
import dev.baton.runtime.engine.Move.Dispatch;
import dev.baton.runtime.engine.Move.Finish;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every transition of the state machine, in tables. The workflow: reserve (compensate: release), check (no
 * compensation), charge (compensate: refund, onTimeout: Redispatch up to 2), ship (no compensation).
 */
class TransitionsTest {

  static final WorkflowDefinition SAGA = definition(OnFailure.Compensate);
  static final WorkflowDefinition STOP = definition(OnFailure.Stop);

  static WorkflowDefinition definition(OnFailure onFailure) {
    WorkflowSpec spec = new WorkflowSpec();
    spec.setEntity("order");
    spec.setOnFailure(onFailure);
    StepSpec reserve = step("reserve", "reserve", "release", "30s");
    StepSpec check = step("check", "check", null, "30s");
    StepSpec charge = step("charge", "pay", "refund", "1m");
    charge.setOnTimeout(OnTimeout.Redispatch);
    charge.setMaxDispatches(2);
    StepSpec ship = step("ship", "ship", null, null);
    spec.setSteps(List.of(reserve, check, charge, ship));
    return DefinitionCatalog.runnable("default", "orders", 1, spec);
  }

  static StepSpec step(String name, String command, String compensate, String timeout) {
    StepSpec s = new StepSpec(name, "svc", command);
    s.setCompensate(compensate);
    s.setTimeout(timeout);
    return s;
  }

  static InstanceState state(InstanceStatus status, Phase phase, int step, int attempt, int dispatches) {
    return new InstanceState(status, phase, step, attempt, dispatches);
  }

  static StepResult result(String step, String action, int attempt, EventResult r) {
    return new StepResult(step, action, attempt, r, r == EventResult.SUCCESS ? null : "E1",
        r == EventResult.SUCCESS ? null : "nope");
  }

  static Outcome failedWith(ExecutionStatus status) {
    return new Outcome(status, "E1", "nope");
  }

  static Arguments row(String name, WorkflowDefinition d, InstanceState s, Function<InstanceState, Decision> stimulus,
      Decision expected) {
    return Arguments.of(name, d, s, stimulus, expected);
  }

  static Stream<Arguments> results() {
    InstanceState reserving = state(RUNNING, FORWARD, 0, 1, 1);
    InstanceState charging = state(RUNNING, FORWARD, 2, 1, 1);
    InstanceState checking = state(RUNNING, FORWARD, 1, 1, 1);
    InstanceState shipping = state(RUNNING, FORWARD, 3, 1, 1);
    InstanceState refunding = state(COMPENSATING, COMPENSATION, 2, 1, 1);
    InstanceState releasing = state(COMPENSATING, COMPENSATION, 0, 1, 1);
    return Stream.of(
        // success × forward / compensation × next / last
        row("success, forward, next step", SAGA, reserving,
            s -> Transitions.onResult(SAGA, s, result("reserve", "reserve", 1, EventResult.SUCCESS)),
            new Change(Outcome.succeeded(), new Dispatch(FORWARD, 1, 1, 1))),
        row("success, forward, last step", SAGA, shipping,
            s -> Transitions.onResult(SAGA, s, result("ship", "ship", 1, EventResult.SUCCESS)),
            new Change(Outcome.succeeded(), new Finish(SUCCEEDED))),
        row("success, compensation, next compensable skips steps without compensate", SAGA, refunding,
            s -> Transitions.onResult(SAGA, s, result("charge", "refund", 1, EventResult.SUCCESS)),
            new Change(Outcome.succeeded(), new Dispatch(COMPENSATION, 0, 1, 1))),
        row("success, compensation, last one", SAGA, releasing,
            s -> Transitions.onResult(SAGA, s, result("reserve", "release", 1, EventResult.SUCCESS)),
            new Change(Outcome.succeeded(), new Finish(COMPENSATED))),
        // failed × forward × Compensate / Stop / nothing to compensate
        row("failed, forward, Compensate: latest compensable step first", SAGA, shipping,
            s -> Transitions.onResult(SAGA, s, result("ship", "ship", 1, EventResult.FAILED)),
            new Change(failedWith(ExecutionStatus.FAILED), new Dispatch(COMPENSATION, 2, 1, 1))),
        row("failed, forward, Compensate, from a middle step", SAGA, checking,
            s -> Transitions.onResult(SAGA, s, result("check", "check", 1, EventResult.FAILED)),
            new Change(failedWith(ExecutionStatus.FAILED), new Dispatch(COMPENSATION, 0, 1, 1))),
        row("failed, forward, Compensate, nothing to compensate", SAGA, reserving,
            s -> Transitions.onResult(SAGA, s, result("reserve", "reserve", 1, EventResult.FAILED)),
            new Change(failedWith(ExecutionStatus.FAILED), new Finish(FAILED))),
        row("failed, forward, Stop", STOP, shipping,
            s -> Transitions.onResult(STOP, s, result("ship", "ship", 1, EventResult.FAILED)),
            new Change(failedWith(ExecutionStatus.FAILED), new Finish(FAILED))),
        row("failed, compensation", SAGA, refunding,
            s -> Transitions.onResult(SAGA, s, result("charge", "refund", 1, EventResult.FAILED)),
            new Change(failedWith(ExecutionStatus.FAILED), new Finish(FAILED))),
        // error × forward / compensation × Compensate / Stop
        row("error, forward, Compensate", SAGA, charging,
            s -> Transitions.onResult(SAGA, s, result("charge", "pay", 1, EventResult.ERROR)),
            new Change(failedWith(ExecutionStatus.ERROR), new Dispatch(COMPENSATION, 0, 1, 1))),
        row("error, forward, Stop", STOP, charging,
            s -> Transitions.onResult(STOP, s, result("charge", "pay", 1, EventResult.ERROR)),
            new Change(failedWith(ExecutionStatus.ERROR), new Finish(FAILED))),
        row("error, compensation", SAGA, releasing,
            s -> Transitions.onResult(SAGA, s, result("reserve", "release", 1, EventResult.ERROR)),
            new Change(failedWith(ExecutionStatus.ERROR), new Finish(FAILED))),
        // stale
        row("stale: another step", SAGA, charging,
            s -> Transitions.onResult(SAGA, s, result("reserve", "reserve", 1, EventResult.SUCCESS)),
            new NoChange(null)),
        row("stale: an older attempt", SAGA, state(RUNNING, FORWARD, 2, 2, 2),
            s -> Transitions.onResult(SAGA, s, result("charge", "pay", 1, EventResult.SUCCESS)),
            new NoChange(null)),
        row("stale: the forward action while compensating", SAGA, refunding,
            s -> Transitions.onResult(SAGA, s, result("charge", "pay", 1, EventResult.SUCCESS)),
            new NoChange(null)),
        row("stale: instance finished", SAGA, state(SUCCEEDED, FORWARD, 3, 1, 1),
            s -> Transitions.onResult(SAGA, s, result("ship", "ship", 1, EventResult.FAILED)),
            new NoChange(null)),
        row("stale: instance cancelled", SAGA, state(CANCELLED, FORWARD, 1, 1, 1),
            s -> Transitions.onResult(SAGA, s, result("check", "check", 1, EventResult.SUCCESS)),
            new NoChange(null)));
  }

  static Stream<Arguments> timeouts() {
    return Stream.of(
        row("timeout, forward, Fail, Compensate", SAGA, state(RUNNING, FORWARD, 1, 1, 1),
            s -> Transitions.onTimeout(SAGA, s), new Change(Outcome.timedOut(), new Dispatch(COMPENSATION, 0, 1, 1))),
        row("timeout, forward, Fail, nothing to compensate", SAGA, state(RUNNING, FORWARD, 0, 1, 1),
            s -> Transitions.onTimeout(SAGA, s), new Change(Outcome.timedOut(), new Finish(FAILED))),
        row("timeout, forward, Fail, Stop", STOP, state(RUNNING, FORWARD, 1, 1, 1),
            s -> Transitions.onTimeout(STOP, s), new Change(Outcome.timedOut(), new Finish(FAILED))),
        row("timeout, Redispatch within maxDispatches: same step, next attempt", SAGA, state(RUNNING, FORWARD, 2, 1, 1),
            s -> Transitions.onTimeout(SAGA, s), new Change(Outcome.timedOut(), new Dispatch(FORWARD, 2, 2, 2))),
        row("timeout, Redispatch spent: fail and compensate", SAGA, state(RUNNING, FORWARD, 2, 2, 2),
            s -> Transitions.onTimeout(SAGA, s), new Change(Outcome.timedOut(), new Dispatch(COMPENSATION, 0, 1, 1))),
        row("timeout, compensation with Redispatch: sent again", SAGA, state(COMPENSATING, COMPENSATION, 2, 1, 1),
            s -> Transitions.onTimeout(SAGA, s), new Change(Outcome.timedOut(), new Dispatch(COMPENSATION, 2, 2, 2))),
        row("timeout, compensation, Fail", SAGA, state(COMPENSATING, COMPENSATION, 0, 1, 1),
            s -> Transitions.onTimeout(SAGA, s), new Change(Outcome.timedOut(), new Finish(FAILED))),
        row("timeout, instance finished", SAGA, state(FAILED, FORWARD, 1, 1, 1),
            s -> Transitions.onTimeout(SAGA, s), new NoChange(null)));
  }

  static Stream<Arguments> commands() {
    return Stream.of(
        row("start", SAGA, null, s -> Transitions.start(SAGA), new Change(null, new Dispatch(FORWARD, 0, 1, 1))),
        row("cancel RUNNING", SAGA, state(RUNNING, FORWARD, 1, 1, 1), Transitions::cancel,
            new Change(Outcome.cancelled(), new Finish(CANCELLED))),
        row("cancel COMPENSATING", SAGA, state(COMPENSATING, COMPENSATION, 0, 1, 1), Transitions::cancel,
            new Change(Outcome.cancelled(), new Finish(CANCELLED))),
        row("cancel SUCCEEDED", SAGA, state(SUCCEEDED, FORWARD, 3, 1, 1), Transitions::cancel, new NoChange(null)),
        row("retry a failed forward step: same step, next attempt", SAGA, state(FAILED, FORWARD, 1, 3, 1),
            s -> Transitions.retry(SAGA, s), new Change(null, new Dispatch(FORWARD, 1, 4, 1))),
        row("retry a failed compensation: compensating again", SAGA, state(FAILED, COMPENSATION, 2, 1, 2),
            s -> Transitions.retry(SAGA, s), new Change(null, new Dispatch(COMPENSATION, 2, 2, 1))),
        row("retry COMPENSATED", SAGA, state(COMPENSATED, COMPENSATION, 0, 1, 1),
            s -> Transitions.retry(SAGA, s), new NoChange(null)),
        row("retry RUNNING", SAGA, state(RUNNING, FORWARD, 0, 1, 1),
            s -> Transitions.retry(SAGA, s), new NoChange(null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"results", "timeouts", "commands"})
  void transitions(String name, WorkflowDefinition d, InstanceState s, Function<InstanceState, Decision> stimulus,
      Decision expected) {
    Decision actual = stimulus.apply(s);
    if (expected instanceof NoChange) {
      assertThat(actual).isInstanceOf(NoChange.class);
      assertThat(((NoChange) actual).reason()).isNotBlank();
    } else {
      assertThat(actual).isEqualTo(expected);
    }
  }

  @Test
  void dispatchStatusFollowsThePhase() {
    assertThat(new Dispatch(FORWARD, 0, 1, 1).status()).isEqualTo(RUNNING);
    assertThat(new Dispatch(COMPENSATION, 0, 1, 1).status()).isEqualTo(COMPENSATING);
  }

  @Test
  void failuresRecordTheLastErrorAndSuccessesDoNot() {
    assertThat(new Change(Outcome.timedOut(), new Finish(FAILED)).recordsError()).isTrue();
    assertThat(new Change(Outcome.succeeded(), new Finish(SUCCEEDED)).recordsError()).isFalse();
    assertThat(new Change(Outcome.cancelled(), new Finish(CANCELLED)).recordsError()).isFalse();
    assertThat(Outcome.timedOut().reason()).isEqualTo("Timeout");
  }

  @Test
  void definitionsResolveDefaults() {
    StepDefinition charge = SAGA.step(2);
    assertThat(charge.actionFor(FORWARD)).isEqualTo("pay");
    assertThat(charge.actionFor(COMPENSATION)).isEqualTo("refund");
    assertThat(charge.timeout()).hasMinutes(1);
    assertThat(SAGA.step(3).timeout()).isNull();
    assertThat(SAGA.step(0).onTimeout()).isEqualTo(OnTimeout.Fail);
    assertThat(SAGA.step(0).maxDispatches()).isEqualTo(1);
  }

  @Test
  void definitionsRefuseSpecsTheTranslatorRefuses() {
    WorkflowSpec noSteps = new WorkflowSpec();
    noSteps.setEntity("order");
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, noSteps)).hasMessageContaining("steps is empty");

    WorkflowSpec badTimeout = new WorkflowSpec();
    badTimeout.setEntity("order");
    badTimeout.setSteps(List.of(step("a", "a", null, "soon")));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, badTimeout))
        .hasMessageContaining("spec.steps[0].timeout");

    WorkflowSpec duplicate = new WorkflowSpec();
    duplicate.setEntity("order");
    duplicate.setSteps(List.of(step("a", "a", null, null), step("a", "b", null, null)));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, duplicate))
        .hasMessageContaining("step name 'a' is already used by spec.steps[0]");
  }

  @Test
  void definitionsWithStepsThisRuntimeCannotRunYetAreRefusedNamingTheStep() {
    WorkflowSpec delayed = new WorkflowSpec();
    delayed.setEntity("order");
    StepSpec pause = new StepSpec();
    pause.setName("pause");
    pause.setDelay("2s");
    delayed.setSteps(List.of(step("a", "a", null, null), pause));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, delayed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("step 'pause' is a delay step, which this runtime cannot run yet: it runs task steps only");

    WorkflowSpec mapped = new WorkflowSpec();
    mapped.setEntity("order");
    StepSpec ship = step("ship", "ship", null, null);
    ship.setInput(java.util.Map.of("address", "input.address"));
    mapped.setSteps(List.of(ship));
    assertThatThrownBy(() -> DefinitionCatalog.runnable("ns", "w", 1, mapped))
        .hasMessageContaining("step 'ship' maps its input");
  }
}
