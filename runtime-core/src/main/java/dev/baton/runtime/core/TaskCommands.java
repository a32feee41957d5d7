package dev.baton.runtime.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.runtime.core.Transition.Dispatch;
import dev.baton.workflow.ExpressionException;
import dev.baton.workflow.Step;

/** A task's attempt (or its compensation's) and the command that carries it to a worker. */
final class TaskCommands {
  private final Draft d;
  private final CommandSettings settings;

  TaskCommands(Draft draft, CommandSettings settings) {
    this.d = draft;
    this.settings = settings;
  }

  /** Starts a task's (or its compensation's) attempt with its command, or fails it when its mapping fails. */
  void start(Step.Task task, String parent, int attempt, int sends, boolean compensation, Scope scope) {
    String name = compensation ? StepState.compensationOf(scope.rowName(task)) : scope.rowName(task);
    StepState row = StepState.started(name, "task", parent, attempt, sends,
        compensation ? task.compensate() : task.action(), settings.messageIds().get(), task.timeout());
    d.started(row);
    JsonNode input;
    ObjectNode outputs = null;
    if (task.hasMappedInput()) {
      try {
        input = d.inputs.mappedInput(task, scope);
      } catch (ExpressionException e) {
        // Nothing was sent: the attempt fails as the expression did (and a compensation's failure fails the
        // instance, as a failed compensation does).
        d.end(row.withoutCommand(), StepStatus.FAILED, null, StateMachine.EXPRESSION_ERROR, e.getMessage(), null,
            true);
        return;
      }
    } else {
      TaskInputs.MergedInput in = d.inputs.mergedInput(scope);
      input = in.input();
      outputs = in.outputs();
    }
    long bytes = Json.writeBytes(input).length + (outputs == null ? 0 : Json.writeBytes(outputs).length);
    long broker = settings.brokerCommandBytes().getAsLong();
    long limit = Math.min(settings.maxCommandBytes(), broker);
    if (bytes > limit) {
      // Nothing is sent: the step fails (a compensation's failure fails the instance), as it would at the broker,
      // but at once and with the reason, instead of a command the broker refuses.
      d.end(row.withoutCommand(), StepStatus.FAILED, null, StateMachine.PAYLOAD_TOO_LARGE, "its command would carry "
          + bytes + " bytes of input and earlier outputs, over the limit of " + limit
          + (broker < settings.maxCommandBytes()
              ? " (what the broker's max_message_size leaves for a command's input)"
              : " (BATON_MAX_COMMAND_BYTES)"), null, true);
      return;
    }
    d.dispatches.add(new Dispatch(row, task, compensation, input, outputs));
  }
}
