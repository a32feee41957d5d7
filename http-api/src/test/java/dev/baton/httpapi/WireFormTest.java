package dev.baton.httpapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The documents as clients read them: field names, instants as text, and which fields are left out when empty. */
class WireFormTest {

  private static final Instant T = Instant.parse("2026-12-04T10:00:00.123Z");

  private static InstanceDocument instance(List<StepDocument> steps) {
    return new InstanceDocument("i-1", "default", "orders", 2, "order-1", null, "FAILED", "FORWARD", "charge", 1, T,
        null, T.plusSeconds(7200), new LastError("charge", "task", "pay", 1, "FAILED", "CARD_DECLINED", "declined", T), T, T, T,
        "system:serviceaccount:shop:ci", Json.readObject("{\"sku\":\"book\"}"), Json.object(), steps,
        List.of(new AuditEntry("start", "system:serviceaccount:shop:ci", T, "10.0.0.7", null)));
  }

  @Test
  void theFullFormCarriesEveryFieldOfTheContractWithNullsWritten() {
    StepDocument charge = new StepDocument("charge", "task", null, "pay", "FAILED", 1, T, T, null,
        new StepDocument.StepError("CARD_DECLINED", "declined"), null, null, "m-1", null);
    JsonNode json = Json.MAPPER.valueToTree(instance(List.of(charge)));

    assertThat(json.fieldNames()).toIterable().containsExactly("id", "namespace", "workflow", "revision",
        "businessKey", "traceId", "status", "phase", "currentStep", "attempt", "since", "deadline", "instanceDeadline",
        "lastError",
        "createdAt", "updatedAt", "finishedAt", "createdBy", "input", "outputs", "steps", "audit");
    assertThat(json.get("since").asText()).isEqualTo("2026-12-04T10:00:00.123Z");
    assertThat(json.get("deadline").isNull()).isTrue();
    assertThat(json.get("instanceDeadline").asText()).isEqualTo("2026-12-04T12:00:00.123Z");
    assertThat(json.at("/lastError/errorCode").asText()).isEqualTo("CARD_DECLINED");
    JsonNode step = json.at("/steps/0");
    assertThat(step.fieldNames()).toIterable().containsExactly("name", "kind", "parent", "action", "status",
        "attempt", "startedAt", "finishedAt", "output", "error", "commandMessageId");
    assertThat(step.at("/error/code").asText()).isEqualTo("CARD_DECLINED");
  }

  @Test
  void theListFormLeavesOutInputOutputsStepsAndAuditButSaysWhoStarted() {
    JsonNode json = Json.MAPPER.valueToTree(InstanceList.of(List.of(instance(List.of()).summary())));
    assertThat(json.get("count").asInt()).isEqualTo(1);
    assertThat(json.at("/items/0").has("input")).isFalse();
    assertThat(json.at("/items/0").has("steps")).isFalse();
    assertThat(json.at("/items/0").has("audit")).isFalse();
    assertThat(json.at("/items/0/createdBy").asText()).isEqualTo("system:serviceaccount:shop:ci");
    assertThat(json.at("/items/0").has("lastError")).isTrue();
  }

  @Test
  void aChoiceSaysItsCaseAndALateAnswerShowsOtherStepsDoNot() {
    StepDocument choice = new StepDocument("route", "choice", null, null, "SUCCEEDED", 1, T, T, null, null,
        "otherwise", null, null, null);
    assertThat(Json.MAPPER.valueToTree(choice).get("chosen").asText()).isEqualTo("otherwise");
    assertThat(Json.MAPPER.valueToTree(choice).has("late")).isFalse();
    assertThat(Json.MAPPER.valueToTree(choice).has("itemCount")).isFalse();
  }

  @Test
  void linksToAParentAndChildrenAreWrittenOnlyWhenThereAreSome() {
    JsonNode alone = Json.MAPPER.valueToTree(instance(List.of()));
    assertThat(alone.has("parent")).isFalse();
    assertThat(alone.has("children")).isFalse();
    assertThat(Json.MAPPER.valueToTree(instance(List.of()).withLinks(null, List.of())).has("children")).isFalse();

    JsonNode linked = Json.MAPPER.valueToTree(instance(List.of()).withLinks(
        new InstanceLink("invoice", "p-1", "order", "RUNNING"),
        List.of(new InstanceLink("audit[2]", "c-1", "auditing", "SUCCEEDED"))));
    assertThat(linked.at("/parent/id").asText()).isEqualTo("p-1");
    assertThat(linked.at("/parent/step").asText()).isEqualTo("invoice");
    assertThat(linked.at("/children/0/step").asText()).isEqualTo("audit[2]");
    assertThat(linked.at("/children/0/status").asText()).isEqualTo("SUCCEEDED");
    assertThat(linked.at("/children/0").fieldNames()).toIterable().containsExactly("step", "id", "workflow", "status");
  }

  @Test
  void aMapSaysHowManyItemsItsListHas() {
    StepDocument map = new StepDocument("ship-items", "map", null, null, "RUNNING", 1, T, null, null, null, null,
        null, null, 3);
    assertThat(Json.MAPPER.valueToTree(map).get("itemCount").asInt()).isEqualTo(3);
  }

  @Test
  void documentsReadBackAsTheyWereWrittenAndNewerFieldsAreIgnored() throws Exception {
    InstanceDocument written = instance(List.of());
    com.fasterxml.jackson.databind.node.ObjectNode json = Json.MAPPER.valueToTree(written);
    json.put("addedLater", true);
    assertThat(Json.MAPPER.treeToValue(json, InstanceDocument.class)).isEqualTo(written);
  }

  @Test
  void healthListsLanesNotRunningOnlyWhenThereAreSome() {
    JsonNode up = Json.MAPPER.valueToTree(new Health("UP", "UP", "UP", "UP", List.of(), List.of("orders")));
    assertThat(up.has("lanesNotRunning")).isFalse();
    assertThat(new Health("DOWN", "UP", "UP", "DOWN", List.of("lane 0: restarting"), List.of()).up()).isFalse();
  }

  @Test
  void clientPathsAreEncoded() {
    assertThat(ApiPaths.instances("team a", "orders", "FAILED", "o/1", 5))
        .isEqualTo("/api/v1/namespaces/team%20a/workflows/orders/instances?limit=5&status=FAILED&businessKey=o%2F1");
    assertThat(ApiPaths.signal("i-1", "approve")).isEqualTo("/api/v1/instances/i-1/signals/approve");
    assertThat(ApiPaths.instance("i-1", java.time.Duration.ofSeconds(30))).isEqualTo("/api/v1/instances/i-1?wait=30000ms");
  }
}
