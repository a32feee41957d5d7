package dev.baton.devapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.crd.CommittedCrds;
import dev.baton.api.json.Json;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TableRendererTest {

  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  @ParameterizedTest(name = "{0}s old reads {1}")
  @CsvSource({
      "0, 0s", "-1, 0s", "-5, <invalid>", "59, 59s", "119, 119s", "120, 2m", "150, 2m30s", "599, 9m59s",
      "600, 10m", "10799, 179m", "10800, 3h", "11100, 3h5m", "28800, 8h", "172799, 47h", "172800, 2d",
      "183600, 2d3h", "691200, 8d", "63072000, 2y", "65664000, 2y30d", "252288000, 8y"})
  void agesReadLikeKubectl(long seconds, String expected) {
    assertThat(HumanDuration.format(Duration.ofSeconds(seconds))).isEqualTo(expected);
  }

  @Test
  void jsonPathFollowsFieldsIndexesAndFilters() {
    JsonNode o = Json.parse("""
        {"status": {"conditions": [{"type": "TopologyReady", "status": "False"},
                                   {"type": "Ready", "status": "True", "reason": "Reconciled"}]},
         "spec": {"steps": [{"name": "a"}, {"name": "b"}]}}""");
    assertThat(JsonPath.compile(".status.conditions[?(@.type==\"Ready\")].status").first(o).asText()).isEqualTo("True");
    assertThat(JsonPath.compile("{.status.conditions[?(@.type=='Ready')].reason}").first(o).asText())
        .isEqualTo("Reconciled");
    assertThat(JsonPath.compile(".spec.steps[*].name").evaluate(o)).extracting(JsonNode::asText)
        .containsExactly("a", "b");
    assertThat(JsonPath.compile(".spec.steps[-1].name").first(o).asText()).isEqualTo("b");
    assertThat(JsonPath.compile(".status.missing").first(o)).isNull();
  }

  @Test
  void workflowRowsUseTheCrdPrinterColumns() {
    ResourceType workflows = ResourceType.fromCrd(CommittedCrds.read("workflows.baton.dev-v1.yml")).get(0);
    JsonNode list = Json.parse("""
        {"kind": "List", "metadata": {"resourceVersion": "42"}, "items": [
          {"metadata": {"name": "order", "namespace": "default", "creationTimestamp": "2026-11-30T11:55:30Z"},
           "spec": {"entity": "order", "paused": true},
           "status": {"steps": 3, "running": 2, "succeeded": 7, "failed": 0,
                      "lastFire": "2026-11-30T11:59:00Z", "nextFire": "2026-11-30T12:01:00Z",
                      "conditions": [{"type": "Ready", "status": "True", "reason": "Reconciled"}]}},
          {"metadata": {"name": "fresh", "namespace": "default", "creationTimestamp": "2026-11-30T11:59:58Z"},
           "spec": {"entity": "order"}}]}""");

    JsonNode table = TableRenderer.render(PrinterColumns.forType(workflows), list, null, NOW);

    assertThat(table.path("kind").asText()).isEqualTo("Table");
    assertThat(table.path("apiVersion").asText()).isEqualTo("meta.k8s.io/v1");
    assertThat(table.path("metadata").path("resourceVersion").asText()).isEqualTo("42");
    assertThat(names(table.path("columnDefinitions"))).containsExactly("Name", "Entity", "Steps", "Ready", "Reason",
        "Paused", "Running", "Succeeded", "Failed", "Compensated", "Last Fire", "Next Fire", "Age");
    assertThat(table.path("columnDefinitions").get(0).path("format").asText()).isEqualTo("name");
    assertThat(table.path("columnDefinitions").get(1).path("priority").asInt()).isEqualTo(1);
    assertThat(Json.write(table.path("rows").get(0).path("cells")))
        .isEqualTo("[\"order\",\"order\",3,\"True\",\"Reconciled\",true,2,7,0,null,\"60s\","
            + "\"2026-11-30T12:01:00Z\",\"4m30s\"]");
    // no status yet: empty cells, as a cluster shows them
    assertThat(Json.write(table.path("rows").get(1).path("cells")))
        .isEqualTo("[\"fresh\",\"order\",null,null,null,null,null,null,null,null,null,null,\"2s\"]");
    assertThat(table.path("rows").get(0).path("object").path("kind").asText()).isEqualTo("PartialObjectMetadata");
    assertThat(table.path("rows").get(0).path("object").path("metadata").path("name").asText()).isEqualTo("order");
  }

  @Test
  void stringColumnsPrintListsAsJsonAndObjectsCanBeLeftOut() {
    ResourceType policies = ResourceType.fromCrd(CommittedCrds.read("retrypolicies.baton.dev-v1.yml")).get(0);
    JsonNode policy = Json.parse("""
        {"metadata": {"name": "quick", "creationTimestamp": "2026-11-30T09:00:00Z"},
         "spec": {"maxAttempts": 4}, "status": {"delays": ["1s", "2s"]}}""");
    JsonNode table = TableRenderer.render(PrinterColumns.forType(policies), policy, "None", NOW);
    assertThat(Json.write(table.path("rows").get(0).path("cells")))
        .isEqualTo("[\"quick\",4,\"[\\\"1s\\\",\\\"2s\\\"]\",null,null,\"3h\"]");
    assertThat(table.path("rows").get(0).has("object")).isFalse();
  }

  @Test
  void builtInKindsGetTheColumnsKubectlUsersKnow() {
    JsonNode deployment = Json.parse("""
        {"kind": "Deployment", "metadata": {"name": "payment", "creationTimestamp": "2026-11-30T11:00:00Z"},
         "spec": {"replicas": 2}, "status": {"readyReplicas": 1, "updatedReplicas": 2}}""");
    JsonNode table = TableRenderer.render(PrinterColumns.forType(builtIn("Deployment")), deployment, null, NOW);
    assertThat(names(table.path("columnDefinitions")))
        .containsExactly("Name", "Ready", "Up-to-date", "Available", "Age");
    assertThat(Json.write(table.path("rows").get(0).path("cells"))).isEqualTo("[\"payment\",\"1/2\",2,0,\"60m\"]");

    JsonNode secret = Json.parse("""
        {"kind": "Secret", "metadata": {"name": "creds", "creationTimestamp": "2026-11-30T11:59:00Z"},
         "data": {"username": "dQ==", "password": "cA==", "uri": "dQ=="}}""");
    JsonNode secrets = TableRenderer.render(PrinterColumns.forType(builtIn("Secret")), secret, null, NOW);
    assertThat(names(secrets.path("columnDefinitions"))).containsExactly("Name", "Type", "Data", "Age");
    assertThat(Json.write(secrets.path("rows").get(0).path("cells"))).isEqualTo("[\"creds\",\"Opaque\",3,\"60s\"]");
  }

  private static ResourceType builtIn(String kind) {
    return KnownResources.BUILT_IN.stream().filter(t -> t.kind().equals(kind)).findFirst().orElseThrow();
  }

  private static List<String> names(JsonNode definitions) {
    return definitions.findValuesAsText("name");
  }
}
