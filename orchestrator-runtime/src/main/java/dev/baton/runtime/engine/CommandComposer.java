package dev.baton.runtime.engine;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.messaging.tracing.MessagingSpans;
import dev.baton.runtime.core.AttemptDeadline;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.Transition;
import dev.baton.runtime.store.OutboxMessage;
import dev.baton.runtime.tracing.InstanceTracing;
import dev.baton.workflow.Step;
import dev.baton.workflow.WorkflowDefinition;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Builds the command of a dispatch as docs/design.md#message-contract specifies it, ready for the outbox. */
public final class CommandComposer {

  /**
   * Which instance the command belongs to.
   *
   * @param traceparent the instance's trace, the dispatch span's parent when no span is current (may be null)
   * @param instanceDeadline the instance's own deadline, or null: no forward command carries a later one
   */
  public record Subject(UUID instanceId, String namespace, String businessKey, WorkflowDefinition definition,
      String traceparent, Instant instanceDeadline) {

    public Subject(UUID instanceId, String namespace, String businessKey, WorkflowDefinition definition) {
      this(instanceId, namespace, businessKey, definition, null, null);
    }
  }

  private final InstanceTracing tracing;

  /** Commands without spans of their own: they carry the instance's {@code traceparent}, if any. */
  public CommandComposer() {
    this(new InstanceTracing(OpenTelemetry.noop()));
  }

  public CommandComposer(InstanceTracing tracing) {
    this.tracing = tracing;
  }

  /**
   * The command of one task row the state machine started: its input is the one the state machine chose (the
   * mapped object, or the instance input with earlier outputs merged in). Earlier outputs are not sent twice: the
   * body's {@code outputs} holds only those that could not be merged (outputs that are not JSON objects).
   */
  /**
   * @param decidedAt when the dispatch was decided: its attempt's deadline ({@code baton-deadline}) is this plus the
   *     step's timeout, the instant at which the runtime times the attempt out; a forward command's is no later than
   *     the instance's own deadline ({@link AttemptDeadline}), which it carries when its step has no timeout
   */
  public OutboxMessage compose(Subject s, Transition.Dispatch dispatch, Instant decidedAt) {
    WorkflowDefinition d = s.definition();
    Step.Task task = dispatch.task();
    StepState row = dispatch.row();
    Map<String, Object> headers = new LinkedHashMap<>();
    headers.put(Headers.WORKFLOW, d.name());
    headers.put(Headers.NAMESPACE, s.namespace());
    headers.put(Headers.REVISION, d.revision());
    headers.put(Headers.INSTANCE, s.instanceId().toString());
    headers.put(Headers.STEP, row.stepName()); // in a map's iteration <step>[<index>]: the row the answer ends
    headers.put(Headers.ATTEMPT, row.attempt());
    headers.put(Headers.ENTITY, d.entity());
    headers.put(Headers.ACTION, row.action());
    headers.put(Headers.RETRIES, 0);
    if (task.timeout() != null) {
      headers.put(Headers.STEP_TIMEOUT, task.timeout().toMillis()); // workers bound their handlers by it
    }
    Instant deadline = AttemptDeadline.of(decidedAt, task.timeout(), !dispatch.compensation(), s.instanceDeadline());
    if (deadline != null) {
      headers.put(Headers.DEADLINE, deadline.toEpochMilli()); // nor start after it
    }
    ObjectNode body = Json.object();
    body.put("instanceId", s.instanceId().toString());
    body.put("workflow", d.name());
    body.put("step", row.stepName());
    body.put("attempt", row.attempt());
    body.put("businessKey", s.businessKey());
    body.set("input", dispatch.input());
    if (dispatch.outputs() != null) {
      body.set("outputs", dispatch.outputs());
    }

    String service = task.service();
    String command = dispatch.compensation() ? task.compensate() : task.command();
    String exchange = Names.commandExchange(service);
    String routingKey = Names.commandRoutingKey(service, command);
    byte[] bodyBytes = Json.writeBytes(body);
    headers.putAll(tracing.dispatch(s.traceparent(), new MessagingSpans.Message(exchange, routingKey,
            row.commandMessageId().toString(), s.instanceId().toString(), bodyBytes.length),
        s.instanceId().toString(), d.name(), dispatch.compensation() ? row.stepName() + "/compensate"
            : row.stepName(), row.attempt(), row.action()));
    return new OutboxMessage(row.commandMessageId(), exchange, routingKey, s.instanceId().toString(),
        Json.write(headers), bodyBytes);
  }
}
