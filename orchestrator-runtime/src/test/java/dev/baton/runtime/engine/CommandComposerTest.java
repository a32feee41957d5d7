package dev.baton.runtime.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.json.Json;
import dev.baton.runtime.store.OutboxMessage;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CommandComposerTest {

  @Test
  void aCompensationCommandGoesToTheCompensatingCommandWithTheFullContext() throws Exception {
    WorkflowDefinition d = TransitionsTest.SAGA;
    UUID instance = UUID.randomUUID();
    var input = Json.readObject("{\"sku\": \"A1\", \"qty\": 1}");
    var outputs = Json.readObject("{\"reserve\": {\"qty\": 2, \"lot\": 7}, \"check\": \"ok\", \"charge\": {\"paid\": 5}}");
    OutboxMessage m = new CommandComposer().compose(UUID.randomUUID(),
        new CommandComposer.Subject(instance, "shop", "order-42", d, d.step(2), Phase.COMPENSATION, 3), input, outputs);

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
    JsonNode body = Json.MAPPER.readTree(m.body());
    // later outputs win; non-object outputs are not merged into input but stay in outputs
    assertThat(body.get("input")).isEqualTo(Json.read("{\"sku\": \"A1\", \"qty\": 2, \"lot\": 7, \"paid\": 5}"));
    assertThat(body.get("outputs").get("check").asText()).isEqualTo("ok");
    assertThat(body.get("businessKey").asText()).isEqualTo("order-42");
    assertThat(input.get("qty").asInt()).isEqualTo(1); // the instance input itself is not changed
  }
}
