package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.contract.EventResult;
import dev.baton.workflow.WorkflowDefinition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * An instance as the database would hold it, moved by the machine the way the runtime moves it: each decision's rows
 * are written back (new rows get ids, ended rows replace theirs) and the next stimulus is decided on what was
 * written. Its children are what a test says they are.
 */
final class SimulatedInstance {
  final WorkflowDefinition definition;
  final StateMachine machine = new StateMachine(UUID::randomUUID);
  final ObjectNode input;
  final UUID id = UUID.randomUUID();
  List<StepState> rows = new ArrayList<>();
  final Map<String, InstanceState.ChildState> children = new HashMap<>();
  InstanceStatus status = InstanceStatus.RUNNING;
  Phase phase = Phase.FORWARD;
  boolean cancelRequested;
  boolean pastDeadline;
  Transition last;
  long ids;

  SimulatedInstance(WorkflowDefinition definition, String input) {
    this.definition = definition;
    this.input = Json.readObject(input);
    decide(new Stimulus.Start());
  }

  Transition decide(Stimulus stimulus) {
    InstanceState state = new InstanceState(id, status, phase, cancelRequested, input, rows, List.of(),
        pastDeadline, children);
    last = machine.decide(definition, state, stimulus);
    if (last.writes()) {
      for (StepState r : last.rows()) {
        if (r.id() == null) {
          rows.add(withId(r, ++ids));
        } else {
          rows.replaceAll(old -> old.id().equals(r.id()) ? r : old);
        }
      }
      status = last.status();
      phase = last.phase();
      cancelRequested = last.cancelRequested();
    }
    return last;
  }

  static StepState withId(StepState r, long id) {
    return new StepState(id, r.name(), r.kind(), r.parent(), r.attempt(), r.status(), r.action(),
        r.commandMessageId(), r.dispatches(), r.timeout(), false, r.chosen(), r.items(), r.finishSeq(),
        r.resultMessageId(), r.late(), r.output(), r.errorCode(), r.errorReason(), null, null, 0);
  }

  Transition answer(String step, String action, EventResult result, String output) {
    StepState row = latest(step);
    boolean ok = result == EventResult.SUCCESS;
    return decide(new Stimulus.Result(new InboundEvent("ev-" + UUID.randomUUID(), definition.name(), "default",
        UUID.randomUUID(), step, row.attempt(), action, result, ok ? Json.read(output) : null,
        ok ? null : "BROKEN", ok ? null : "the parcel is lost")));
  }

  Transition succeed(String step, String action) {
    return answer(step, action, EventResult.SUCCESS, "{\"" + step.replaceAll("\\W", "_") + "\": true}");
  }

  Transition fail(String step, String action) {
    return answer(step, action, EventResult.FAILED, null);
  }

  StepState latest(String name) {
    StepState found = null;
    for (StepState r : rows) {
      if (r.name().equals(name)) {
        found = r;
      }
    }
    return found;
  }

  /** The commands the last decision sent, as {@code step action}. */
  List<String> sent() {
    return last.dispatches().stream().map(d -> d.row().name() + " " + d.row().action()).toList();
  }

  JsonNode inputOf(String step) {
    return last.dispatches().stream().filter(d -> d.row().name().equals(step)).findFirst().orElseThrow().input();
  }
}
