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

import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.OnTimeout;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.contract.EventResult;
import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every transition of the state machine, in tables. The workflow: reserve (compensate: release), check (no
 * compensation), charge (compensate: refund, onTimeout: Redispatch up to 2), ship (no compensation).
 *
 * <p>A transition is shown as lines: {@code end <step>#<attempt> <status>} for an attempt that ends, {@code send
 * <step>#<attempt> <action>} for a command sent, {@code late <step>#<attempt>} for a result recorded on an attempt
 * that had ended, then {@code -> <instance status>}, and {@code withdraw} when unpublished commands are withdrawn.
 * Compensations are steps named {@code <step>/compensate}.
 */
class StateMachineTest {

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

  // --- building states ---

  /** An attempt as stored; rows listed earlier started (and ended) earlier. */
  record Row(String name, int attempt, StepStatus status, int dispatches, boolean due, String resultMessageId) {}

  static Row ok(String name) {
    return new Row(name, 1, StepStatus.SUCCEEDED, 1, false, null);
  }

  static Row ended(String name, int attempt, StepStatus status) {
    return new Row(name, attempt, status, 1, false, null);
  }

  static Row running(String name, int attempt) {
    return new Row(name, attempt, StepStatus.RUNNING, attempt, false, null);
  }

  static Row due(String name, int attempt, int dispatches) {
    return new Row(name, attempt, StepStatus.RUNNING, dispatches, true, null);
  }

  static InstanceState state(InstanceStatus status, Phase phase, Row... rows) {
    return state(status, phase, false, rows);
  }

  static InstanceState state(InstanceStatus status, Phase phase, boolean cancelRequested, Row... rows) {
    List<StepState> steps = new ArrayList<>();
    int seq = 0;
    for (Row r : rows) {
      String step = r.name().replace(StepState.COMPENSATION_SUFFIX, "");
      StepDefinition d = SAGA.stepNamed(step).orElseThrow();
      String action = r.name().endsWith(StepState.COMPENSATION_SUFFIX) ? d.compensate() : d.action();
      boolean done = r.status() != StepStatus.RUNNING;
      steps.add(new StepState((long) steps.size() + 1, r.name(), "task", null, r.attempt(), r.status(), action,
          UUID.randomUUID(), r.dispatches(), null, r.due(), null, done ? ++seq : null, r.resultMessageId(), null,
          r.status() == StepStatus.SUCCEEDED ? Json.read("{\"" + step + "\": true}") : null, null, null, null, null,
          0));
    }
    return new InstanceState(UUID.randomUUID(), status, phase, cancelRequested, Json.readObject("{\"n\": 1}"), steps,
        List.of());
  }

  static Stimulus result(String step, String action, int attempt, EventResult r) {
    return result(step, action, attempt, r, "ev-" + UUID.randomUUID());
  }

  static Stimulus result(String step, String action, int attempt, EventResult r, String messageId) {
    boolean ok = r == EventResult.SUCCESS;
    return new Stimulus.Result(new InboundEvent(messageId, "orders", "default", UUID.randomUUID(), step, attempt,
        action, r, ok ? Json.read("{\"" + step + "\": true}") : null, ok ? null : "E1", ok ? null : "nope"));
  }

  static final Stimulus DUE = new Stimulus.TimersDue();
  static final Stimulus RETRY = new Stimulus.Retry();

  static Stimulus cancel(boolean compensate) {
    return new Stimulus.Cancel(compensate);
  }

  /** The transition as lines (see the class comment). */
  static List<String> lines(Transition t) {
    List<String> out = new ArrayList<>();
    if (!t.writes()) {
      out.add(t.kind().name());
      return out;
    }
    for (StepState s : t.rows()) {
      if (t.kind() == Transition.Kind.LATE) {
        out.add("late " + s.name() + "#" + s.attempt());
      } else if (s.id() != null) {
        out.add("end " + s.name() + "#" + s.attempt() + " " + s.status());
      } else if (s.status() == StepStatus.RUNNING && s.kind().equals("task")) {
        out.add("send " + s.name() + "#" + s.attempt() + " " + s.action());
      } else {
        out.add("add " + s.name() + "#" + s.attempt() + " " + s.status());
      }
    }
    if (t.moved()) {
      out.add("-> " + t.status());
    }
    if (t.withdrawCommands()) {
      out.add("withdraw");
    }
    return out;
  }

  static Arguments row(String name, WorkflowDefinition d, InstanceState s, Stimulus stimulus, String... expected) {
    return Arguments.of(name, d, s, stimulus, List.of(expected));
  }

  static final StateMachine MACHINE = new StateMachine(UUID::randomUUID);

  static Stream<Arguments> results() {
    InstanceState reserving = state(RUNNING, FORWARD, running("reserve", 1));
    InstanceState checking = state(RUNNING, FORWARD, ok("reserve"), running("check", 1));
    InstanceState charging = state(RUNNING, FORWARD, ok("reserve"), ok("check"), running("charge", 1));
    InstanceState shipping = state(RUNNING, FORWARD, ok("reserve"), ok("check"), ok("charge"), running("ship", 1));
    InstanceState refunding = state(COMPENSATING, COMPENSATION, ok("reserve"), ok("check"), ok("charge"),
        ended("ship", 1, StepStatus.FAILED), running("charge/compensate", 1));
    InstanceState releasing = state(COMPENSATING, COMPENSATION, ok("reserve"), ok("check"), ok("charge"),
        ended("ship", 1, StepStatus.FAILED), ok("charge/compensate"), running("reserve/compensate", 1));
    return Stream.of(
        // success × forward / compensation × next / last
        row("success, forward, next step", SAGA, reserving, result("reserve", "reserve", 1, EventResult.SUCCESS),
            "end reserve#1 SUCCEEDED", "send check#1 check", "-> RUNNING"),
        row("success, forward, last step", SAGA, shipping, result("ship", "ship", 1, EventResult.SUCCESS),
            "end ship#1 SUCCEEDED", "-> SUCCEEDED"),
        row("success, compensation, next compensable skips steps without compensate", SAGA, refunding,
            result("charge", "refund", 1, EventResult.SUCCESS),
            "end charge/compensate#1 SUCCEEDED", "send reserve/compensate#1 release", "-> COMPENSATING"),
        row("success, compensation, last one", SAGA, releasing, result("reserve", "release", 1, EventResult.SUCCESS),
            "end reserve/compensate#1 SUCCEEDED", "-> COMPENSATED", "withdraw"),
        // failed × forward × Compensate / Stop / nothing to compensate
        row("failed, forward, Compensate: latest compensable step first", SAGA, shipping,
            result("ship", "ship", 1, EventResult.FAILED),
            "end ship#1 FAILED", "send charge/compensate#1 refund", "-> COMPENSATING"),
        row("failed, forward, Compensate, from a middle step", SAGA, checking,
            result("check", "check", 1, EventResult.FAILED),
            "end check#1 FAILED", "send reserve/compensate#1 release", "-> COMPENSATING"),
        row("failed, forward: a business refusal is not compensated, so nothing is", SAGA, reserving,
            result("reserve", "reserve", 1, EventResult.FAILED), "end reserve#1 FAILED", "-> FAILED", "withdraw"),
        row("failed, forward, Stop", STOP, shipping, result("ship", "ship", 1, EventResult.FAILED),
            "end ship#1 FAILED", "-> FAILED", "withdraw"),
        row("failed, compensation", SAGA, refunding, result("charge", "refund", 1, EventResult.FAILED),
            "end charge/compensate#1 FAILED", "-> FAILED", "withdraw"),
        // error × forward / compensation × Compensate / Stop
        row("error, forward, Compensate: the errored step may have taken effect and is compensated first", SAGA,
            charging, result("charge", "pay", 1, EventResult.ERROR),
            "end charge#1 ERROR", "send charge/compensate#1 refund", "-> COMPENSATING"),
        row("error, forward, Compensate, a step without compensate: the ones before it", SAGA, checking,
            result("check", "check", 1, EventResult.ERROR),
            "end check#1 ERROR", "send reserve/compensate#1 release", "-> COMPENSATING"),
        row("error, forward, Stop", STOP, charging, result("charge", "pay", 1, EventResult.ERROR),
            "end charge#1 ERROR", "-> FAILED", "withdraw"),
        row("error, compensation", SAGA, releasing, result("reserve", "release", 1, EventResult.ERROR),
            "end reserve/compensate#1 ERROR", "-> FAILED", "withdraw"),
        // ignored
        row("stale: another step", SAGA, charging, result("reserve", "reserve", 1, EventResult.SUCCESS), "STALE"),
        row("stale: a step the workflow does not have", SAGA, charging, result("nope", "nope", 1, EventResult.SUCCESS),
            "STALE"),
        row("stale: an attempt never sent", SAGA, charging, result("charge", "pay", 3, EventResult.SUCCESS), "STALE"),
        row("late: an older attempt that timed out records the result and changes nothing else", SAGA,
            state(RUNNING, FORWARD, ok("reserve"), ok("check"), ended("charge", 1, StepStatus.TIMED_OUT),
                running("charge", 2)),
            result("charge", "pay", 1, EventResult.SUCCESS), "late charge#1"),
        row("stale: the forward action while compensating", SAGA, refunding,
            result("charge", "pay", 1, EventResult.SUCCESS), "STALE"),
        row("stale: instance finished", SAGA,
            state(SUCCEEDED, FORWARD, ok("reserve"), ok("check"), ok("charge"), ok("ship")),
            result("ship", "ship", 1, EventResult.FAILED), "STALE"),
        row("late: instance cancelled, the cancelled attempt records the result", SAGA,
            state(CANCELLED, FORWARD, ok("reserve"), ended("check", 1, StepStatus.CANCELLED)),
            result("check", "check", 1, EventResult.SUCCESS), "late check#1"),
        row("duplicate: the event that ended the attempt, again", SAGA,
            state(RUNNING, FORWARD, new Row("reserve", 1, StepStatus.SUCCEEDED, 1, false, "ev-1"), running("check", 1)),
            result("reserve", "reserve", 1, EventResult.SUCCESS, "ev-1"), "DUPLICATE"));
  }

  static Stream<Arguments> timeouts() {
    return Stream.of(
        row("timeout, forward, Fail, Compensate", SAGA, state(RUNNING, FORWARD, ok("reserve"), due("check", 1, 1)),
            DUE, "end check#1 TIMED_OUT", "send reserve/compensate#1 release", "-> COMPENSATING"),
        row("timeout, forward: the timed-out step may have taken effect and is compensated", SAGA,
            state(RUNNING, FORWARD, due("reserve", 1, 1)),
            DUE, "end reserve#1 TIMED_OUT", "send reserve/compensate#1 release", "-> COMPENSATING"),
        row("timeout, forward, Fail, Stop", STOP, state(RUNNING, FORWARD, ok("reserve"), due("check", 1, 1)),
            DUE, "end check#1 TIMED_OUT", "-> FAILED", "withdraw"),
        row("timeout, Redispatch within maxDispatches: same step, next attempt", SAGA,
            state(RUNNING, FORWARD, ok("reserve"), ok("check"), due("charge", 1, 1)),
            DUE, "end charge#1 TIMED_OUT", "send charge#2 pay", "-> RUNNING"),
        row("timeout, Redispatch spent: fail, and compensate it first", SAGA,
            state(RUNNING, FORWARD, ok("reserve"), ok("check"), ended("charge", 1, StepStatus.TIMED_OUT),
                due("charge", 2, 2)),
            DUE, "end charge#2 TIMED_OUT", "send charge/compensate#1 refund", "-> COMPENSATING"),
        row("timeout, compensation with Redispatch: sent again", SAGA,
            state(COMPENSATING, COMPENSATION, ok("reserve"), ok("check"), ok("charge"),
                ended("ship", 1, StepStatus.FAILED), due("charge/compensate", 1, 1)),
            DUE, "end charge/compensate#1 TIMED_OUT", "send charge/compensate#2 refund", "-> COMPENSATING"),
        row("timeout, compensation, Fail", SAGA,
            state(COMPENSATING, COMPENSATION, ok("reserve"), ended("check", 1, StepStatus.FAILED),
                due("reserve/compensate", 1, 1)),
            DUE, "end reserve/compensate#1 TIMED_OUT", "-> FAILED", "withdraw"),
        row("timeout, nothing due", SAGA, state(RUNNING, FORWARD, running("reserve", 1)), DUE, "STALE"),
        row("timeout, instance finished", SAGA, state(FAILED, FORWARD, ended("reserve", 1, StepStatus.FAILED)), DUE,
            "STALE"));
  }

  static Stream<Arguments> commands() {
    return Stream.of(
        row("start", SAGA, state(RUNNING, FORWARD), new Stimulus.Start(), "send reserve#1 reserve", "-> RUNNING"),
        row("cancel RUNNING: the step in flight is cancelled, its command withdrawn", SAGA,
            state(RUNNING, FORWARD, ok("reserve"), running("check", 1)), cancel(false),
            "end check#1 CANCELLED", "-> CANCELLED", "withdraw"),
        row("cancel COMPENSATING", SAGA,
            state(COMPENSATING, COMPENSATION, ok("reserve"), ended("check", 1, StepStatus.FAILED),
                running("reserve/compensate", 1)),
            cancel(false), "end reserve/compensate#1 CANCELLED", "-> CANCELLED", "withdraw"),
        row("cancel SUCCEEDED", SAGA, state(SUCCEEDED, FORWARD, ok("reserve")), cancel(false), "REFUSED"),
        row("cancel CANCELLED again", SAGA, state(CANCELLED, FORWARD, ok("reserve")), cancel(true), "UNCHANGED"),
        row("cancel with compensate: completed steps undone first", SAGA,
            state(RUNNING, FORWARD, ok("reserve"), running("check", 1)), cancel(true),
            "end check#1 CANCELLED", "send reserve/compensate#1 release", "-> COMPENSATING", "withdraw"),
        row("cancel with compensate: the step in flight may have taken effect and is undone first", SAGA,
            state(RUNNING, FORWARD, ok("reserve"), ok("check"), running("charge", 1)), cancel(true),
            "end charge#1 CANCELLED", "send charge/compensate#1 refund", "-> COMPENSATING", "withdraw"),
        row("cancel with compensate while compensating: carries on, to end CANCELLED", SAGA,
            state(COMPENSATING, COMPENSATION, ok("reserve"), ended("check", 1, StepStatus.FAILED),
                running("reserve/compensate", 1)),
            cancel(true), "-> COMPENSATING"),
        row("cancel with compensate, nothing to undo", SAGA, state(RUNNING, FORWARD, running("check", 1)),
            cancel(true), "end check#1 CANCELLED", "-> CANCELLED", "withdraw"),
        row("the last compensation of a cancel ends the instance CANCELLED", SAGA,
            state(COMPENSATING, COMPENSATION, true, ok("reserve"), ended("check", 1, StepStatus.CANCELLED),
                running("reserve/compensate", 1)),
            result("reserve", "release", 1, EventResult.SUCCESS),
            "end reserve/compensate#1 SUCCEEDED", "-> CANCELLED", "withdraw"),
        row("retry a failed forward step: same step, next attempt", SAGA,
            state(FAILED, FORWARD, ok("reserve"), ended("check", 3, StepStatus.FAILED)), RETRY,
            "send check#4 check", "-> RUNNING"),
        row("retry a failed compensation: compensating again", SAGA,
            state(FAILED, COMPENSATION, ok("reserve"), ok("check"), ok("charge"), ended("ship", 1, StepStatus.FAILED),
                ended("charge/compensate", 1, StepStatus.FAILED)),
            RETRY, "send charge/compensate#2 refund", "-> COMPENSATING"),
        row("retry COMPENSATED", SAGA, state(COMPENSATED, COMPENSATION, ok("reserve")), RETRY, "REFUSED"),
        row("retry RUNNING", SAGA, state(RUNNING, FORWARD, running("reserve", 1)), RETRY, "REFUSED"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"results", "timeouts", "commands"})
  void transitions(String name, WorkflowDefinition d, InstanceState s, Stimulus stimulus, List<String> expected) {
    Transition t = MACHINE.decide(d, s, stimulus);
    assertThat(lines(t)).isEqualTo(expected);
    if (!t.writes() && t.kind() != Transition.Kind.UNCHANGED) {
      assertThat(t.reason()).as("why it was ignored").isNotBlank();
    }
  }

  @Test
  void compensationRunsInReverseOrderOfCompletion() {
    // charge ended before reserve (a retried reserve, say): reverse completion order undoes reserve first.
    InstanceState s = state(RUNNING, FORWARD, ok("check"), ok("charge"), ok("reserve"), running("ship", 1));
    Transition t = MACHINE.decide(SAGA, s, result("ship", "ship", 1, EventResult.FAILED));
    assertThat(lines(t)).containsExactly("end ship#1 FAILED", "send reserve/compensate#1 release", "-> COMPENSATING");
  }

  @Test
  void aLateResultIsRecordedOnTheAttemptOnceAndWithItsContent() {
    InstanceState s = state(RUNNING, FORWARD, ok("reserve"), ok("check"), ended("charge", 1, StepStatus.TIMED_OUT),
        running("charge", 2));
    Transition t = MACHINE.decide(SAGA, s, result("charge", "pay", 1, EventResult.SUCCESS, "ev-late"));
    assertThat(t.kind()).isEqualTo(Transition.Kind.LATE);
    StepState recorded = t.rows().get(0);
    assertThat(recorded.status()).as("the attempt stays TIMED_OUT").isEqualTo(StepStatus.TIMED_OUT);
    assertThat(recorded.late().get("result").asText()).isEqualTo("success");
    assertThat(recorded.late().get("output").get("charge").asBoolean()).isTrue();
    assertThat(recorded.late().get("messageId").asText()).isEqualTo("ev-late");
  }

  @Test
  void failuresRecordTheLastErrorAndSuccessesDoNot() {
    Transition timedOut = MACHINE.decide(STOP, state(RUNNING, FORWARD, ok("reserve"), due("check", 1, 1)), DUE);
    assertThat(timedOut.lastError().reason()).isEqualTo("Timeout");
    assertThat(timedOut.lastError().step()).isEqualTo("check");
    assertThat(timedOut.lastError().status()).isEqualTo(StepStatus.TIMED_OUT);
    Transition succeeded = MACHINE.decide(SAGA, state(RUNNING, FORWARD, running("reserve", 1)),
        result("reserve", "reserve", 1, EventResult.SUCCESS));
    assertThat(succeeded.lastError()).isNull();
    Transition cancelled = MACHINE.decide(SAGA, state(RUNNING, FORWARD, running("reserve", 1)), cancel(false));
    assertThat(cancelled.lastError()).isNull();
  }

  @Test
  void aTaskWithoutMappingGetsTheInputWithEarlierOutputsMergedIn() {
    Transition t = MACHINE.decide(SAGA, state(RUNNING, FORWARD, ok("reserve"), running("check", 1)),
        result("check", "check", 1, EventResult.SUCCESS));
    Transition.Dispatch charge = t.dispatches().get(0);
    assertThat(charge.input()).isEqualTo(Json.read("{\"n\": 1, \"reserve\": true, \"check\": true}"));
    assertThat(charge.outputs()).as("every output was an object, merged: nothing sent twice").isNull();
    assertThat(charge.row().commandMessageId()).isNotNull();
  }

  @Test
  void anInstanceWhoseDefinitionNoLongerLoadsFailsWithTheReason() {
    Transition t = StateMachine.abandon(state(RUNNING, FORWARD, ok("reserve"), running("check", 1)),
        Engine.DEFINITION_UNAVAILABLE, "revision 1 cannot be loaded");
    assertThat(lines(t)).containsExactly("end check#1 CANCELLED", "-> FAILED", "withdraw");
    assertThat(t.lastError().errorCode()).isEqualTo("DefinitionUnavailable");
    assertThat(t.lastError().reason()).isEqualTo("revision 1 cannot be loaded");
  }
}
