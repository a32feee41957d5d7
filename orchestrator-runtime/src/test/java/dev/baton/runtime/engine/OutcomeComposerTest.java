package dev.baton.runtime.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.contract.InstanceOutcome;
import dev.baton.runtime.core.Ending;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.Phase;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.OutboxMessage;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OutcomeComposerTest {

  static final Instant CREATED = Instant.parse("2026-12-04T10:00:00.125Z");
  static final Instant FINISHED = Instant.parse("2026-12-04T10:00:03.500Z");
  static final String LAST_ERROR = "{\"step\":\"charge\",\"errorCode\":\"CARD_DECLINED\",\"reason\":\"no\"}";

  static InstanceRecord instance(String namespace, String workflow) {
    return new InstanceRecord(UUID.randomUUID(), namespace, workflow, 3, "order-42", InstanceStatus.COMPENSATING,
        Phase.COMPENSATION, "reserve/compensate", 1, null, null, "{}", LAST_ERROR, false, CREATED, null, null,
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", null, null, false);
  }

  static Ending compensated() {
    return new Ending(InstanceOutcome.COMPENSATED, Json.readObject("{\"reserve\": {\"lot\": 7}}"));
  }

  @Test
  void anOutcomeGoesToTheOutcomeExchangeKeyedByNamespaceWorkflowAndOutcome() {
    InstanceRecord i = instance("shop", "order-fulfilment");
    OutboxMessage m = new OutcomeComposer().compose(i, compensated(), LAST_ERROR, FINISHED).orElseThrow();

    assertThat(m.exchange()).isEqualTo("baton.instance.topic.ex");
    assertThat(m.routingKey()).isEqualTo("shop.order-fulfilment.compensated");
    assertThat(m.correlationId()).isEqualTo(i.id().toString());
    assertThat(m.isInstanceOutcome()).isTrue();
    assertThat(Json.read(m.headersJson())).isEqualTo(Json.read("{\"baton-workflow\": \"order-fulfilment\","
        + " \"baton-namespace\": \"shop\", \"baton-revision\": 3, \"baton-instance\": \"" + i.id() + "\","
        + " \"traceparent\": \"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\"}"));
  }

  @Test
  void itsBodyIsTheContracts() throws Exception {
    InstanceRecord i = instance("shop", "order-fulfilment");
    JsonNode body = Json.MAPPER.readTree(
        new OutcomeComposer().compose(i, compensated(), LAST_ERROR, FINISHED).orElseThrow().body());

    assertThat(body).isEqualTo(Json.read("{\"id\": \"" + i.id() + "\", \"businessKey\": \"order-42\","
        + " \"workflow\": \"order-fulfilment\", \"revision\": 3, \"status\": \"COMPENSATED\","
        + " \"outputs\": {\"reserve\": {\"lot\": 7}}, \"lastError\": " + LAST_ERROR + ","
        + " \"createdAt\": \"2026-12-04T10:00:00.125Z\", \"finishedAt\": \"2026-12-04T10:00:03.500Z\"}"));
  }

  @Test
  void eachEndingHasAMessageIdOfItsOwn() {
    InstanceRecord i = instance("shop", "order-fulfilment");
    OutcomeComposer composer = new OutcomeComposer();
    assertThat(composer.compose(i, compensated(), null, FINISHED).orElseThrow().messageId())
        .isNotEqualTo(composer.compose(i, compensated(), null, FINISHED).orElseThrow().messageId());
  }

  @Test
  void anOutcomeWhoseKeyAmqpCannotCarryIsLeftOutRatherThanHoldingTheEndingUp() {
    InstanceRecord i = instance("a-namespace-of-sixty-three-characters-aaaaaaaaaaaaaaaaaaaaaaaa", "w".repeat(190));
    assertThat(new OutcomeComposer().compose(i, compensated(), null, FINISHED)).isEmpty();
  }
}
