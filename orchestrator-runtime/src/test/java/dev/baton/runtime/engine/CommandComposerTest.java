package dev.baton.runtime.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.Transition;
import dev.baton.runtime.store.OutboxMessage;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CommandComposerTest {

  private static final java.time.Instant DECIDED_AT = java.time.Instant.parse("2026-12-04T10:00:00.250Z");

  /** A saga whose step charge sends pay, compensated by refund, with a timeout of 1m. */
  private static final dev.baton.workflow.WorkflowDefinition SAGA = saga();

  private static dev.baton.workflow.WorkflowDefinition saga() {
    dev.baton.api.v1alpha1.WorkflowSpec spec = new dev.baton.api.v1alpha1.WorkflowSpec();
    spec.setEntity("order");
    dev.baton.api.v1alpha1.StepSpec reserve = new dev.baton.api.v1alpha1.StepSpec("reserve", "svc", "reserve");
    reserve.setCompensate("release");
    dev.baton.api.v1alpha1.StepSpec charge = new dev.baton.api.v1alpha1.StepSpec("charge", "svc", "pay");
    charge.setCompensate("refund");
    charge.setTimeout("1m");
    spec.setSteps(java.util.List.of(reserve, charge));
    return dev.baton.workflow.WorkflowParser.runnable("default", "orders", 1, spec);
  }

  @Test
  void aCompensationCommandGoesToTheCompensatingCommandWithTheFullContext() throws Exception {
    dev.baton.workflow.WorkflowDefinition d = SAGA;
    UUID instance = UUID.randomUUID();
    UUID messageId = UUID.randomUUID();
    // What the state machine hands over: the input with earlier object outputs merged in (later wins), and the
    // outputs it could not merge by step name.
    var input = Json.readObject("{\"sku\": \"A1\", \"qty\": 2, \"lot\": 7, \"paid\": 5}");
    var outputs = Json.readObject("{\"check\": \"ok\"}");
    StepState row = StepState.started("charge/compensate", "task", null, 3, 1, "refund", messageId, null);
    OutboxMessage m = new CommandComposer().compose(new CommandComposer.Subject(instance, "shop", "order-42", d),
        new Transition.Dispatch(row, (dev.baton.workflow.Step.Task) d.step("charge").orElseThrow(), true, input,
            outputs), DECIDED_AT);

    assertThat(m.messageId()).isEqualTo(messageId);
    assertThat(m.exchange()).isEqualTo("svc.command.topic.ex");
    assertThat(m.routingKey()).isEqualTo("service.svc.refund");
    assertThat(m.correlationId()).isEqualTo(instance.toString());
    JsonNode headers = Json.read(m.headersJson());
    assertThat(headers.get("baton-action").asText()).isEqualTo("refund");
    assertThat(headers.get("baton-step").asText()).isEqualTo("charge");
    assertThat(headers.get("baton-attempt").asInt()).isEqualTo(3);
    assertThat(headers.get("baton-retries").asInt()).isZero();
    assertThat(headers.get("baton-step-timeout").asLong()).as("the step's 1m, for the worker's handler timeout")
        .isEqualTo(60_000);
    assertThat(headers.get("baton-deadline").asLong()).as("when the runtime times the attempt out: decided + 1m")
        .isEqualTo(DECIDED_AT.toEpochMilli() + 60_000);
    JsonNode body = Json.MAPPER.readTree(m.body());
    // later outputs win; non-object outputs are not merged into input but stay in outputs
    assertThat(body.get("input")).isEqualTo(Json.read("{\"sku\": \"A1\", \"qty\": 2, \"lot\": 7, \"paid\": 5}"));
    assertThat(body.get("outputs").get("check").asText()).isEqualTo("ok");
    assertThat(body.get("outputs").has("charge")).as("merged outputs are not sent twice").isFalse();
    assertThat(body.get("businessKey").asText()).isEqualTo("order-42");
  }

  @Test
  void aCommandOfAMapsIterationAndItsCompensationNameTheIterationsStepInHeaderAndBody() throws Exception {
    for (String rowName : java.util.List.of("reserve[3]", "reserve[3]/compensate")) {
      StepState row = StepState.started(rowName, "task", "fan[3]", 1, 1, "reserve", UUID.randomUUID(), null);
      OutboxMessage m = new CommandComposer().compose(
          new CommandComposer.Subject(UUID.randomUUID(), "shop", "o-1", SAGA),
          new Transition.Dispatch(row, (dev.baton.workflow.Step.Task) SAGA.step("reserve").orElseThrow(),
              rowName.endsWith("/compensate"), Json.object(), null), DECIDED_AT);

      assertThat(Json.read(m.headersJson()).get("baton-step").asText()).as(rowName).isEqualTo("reserve[3]");
      assertThat(Json.read(new String(m.body(), java.nio.charset.StandardCharsets.UTF_8)).get("step").asText())
          .as(rowName).isEqualTo("reserve[3]");
    }
  }

  @Test
  void aStepWithoutATimeoutSendsNoDeadline() throws Exception {
    StepState row = StepState.started("reserve", "task", null, 1, 1, "reserve", UUID.randomUUID(), null);
    OutboxMessage m = new CommandComposer().compose(new CommandComposer.Subject(UUID.randomUUID(), "shop", "o-1", SAGA),
        new Transition.Dispatch(row, (dev.baton.workflow.Step.Task) SAGA.step("reserve").orElseThrow(), false,
            Json.object(), null), DECIDED_AT);

    JsonNode headers = Json.read(m.headersJson());
    assertThat(headers.has("baton-deadline")).isFalse();
    assertThat(headers.has("baton-step-timeout")).isFalse();
  }

  @Test
  void aForwardCommandNeverCarriesADeadlinePastItsInstancesAndACompensationKeepsItsOwn() throws Exception {
    java.time.Instant instanceDeadline = DECIDED_AT.plusSeconds(20);
    CommandComposer.Subject subject = new CommandComposer.Subject(UUID.randomUUID(), "shop", "o-1", SAGA, null,
        instanceDeadline);
    dev.baton.workflow.Step.Task charge = (dev.baton.workflow.Step.Task) SAGA.step("charge").orElseThrow();
    dev.baton.workflow.Step.Task reserve = (dev.baton.workflow.Step.Task) SAGA.step("reserve").orElseThrow();

    JsonNode pay = Json.read(new CommandComposer().compose(subject, new Transition.Dispatch(
        StepState.started("charge", "task", null, 1, 1, "pay", UUID.randomUUID(), charge.timeout()), charge, false,
        Json.object(), null), DECIDED_AT).headersJson());
    JsonNode untimed = Json.read(new CommandComposer().compose(subject, new Transition.Dispatch(
        StepState.started("reserve", "task", null, 1, 1, "reserve", UUID.randomUUID(), null), reserve, false,
        Json.object(), null), DECIDED_AT).headersJson());
    JsonNode refund = Json.read(new CommandComposer().compose(subject, new Transition.Dispatch(
        StepState.started("charge/compensate", "task", null, 1, 1, "refund", UUID.randomUUID(), charge.timeout()),
        charge, true, Json.object(), null), DECIDED_AT).headersJson());

    assertThat(pay.get("baton-deadline").asLong()).as("1m would outlive the instance: its deadline instead")
        .isEqualTo(instanceDeadline.toEpochMilli());
    assertThat(pay.get("baton-step-timeout").asLong()).as("the step's own, for the handler").isEqualTo(60_000);
    assertThat(untimed.get("baton-deadline").asLong()).as("a step without timeout: the instance's deadline")
        .isEqualTo(instanceDeadline.toEpochMilli());
    assertThat(untimed.has("baton-step-timeout")).isFalse();
    assertThat(refund.get("baton-deadline").asLong()).as("a compensation runs after the instance's deadline")
        .isEqualTo(DECIDED_AT.toEpochMilli() + 60_000);
  }
}
