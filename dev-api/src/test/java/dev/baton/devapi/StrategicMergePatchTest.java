package dev.baton.devapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import org.junit.jupiter.api.Test;

class StrategicMergePatchTest {

  private static final JsonNode DEPLOYMENT = Json.parse("""
      {"spec": {"replicas": 1, "template": {"spec": {"containers": [
        {"name": "worker", "image": "a:1", "env": [{"name": "A", "value": "1"}]},
        {"name": "sidecar", "image": "s:1"}]}}},
       "metadata": {"finalizers": ["x", "y"], "labels": {"app": "a", "old": "o"}}}""");

  private static JsonNode apply(String patch) {
    return MergePatch.apply(DEPLOYMENT, StrategicMergePatch.toMergePatch(DEPLOYMENT, Json.parse(patch)));
  }

  @Test
  void listsWithAnElementOrderMergeByKeyAndKeepOtherFields() {
    JsonNode result = apply("""
        {"spec": {"template": {"spec": {
          "$setElementOrder/containers": [{"name": "worker"}, {"name": "sidecar"}],
          "containers": [{"name": "worker", "image": "a:2"}]}}}}""");
    JsonNode containers = result.at("/spec/template/spec/containers");
    assertThat(containers.size()).isEqualTo(2);
    assertThat(containers.get(0).path("image").asText()).isEqualTo("a:2");
    assertThat(containers.get(0).path("env").get(0).path("value").asText()).isEqualTo("1");
    assertThat(containers.get(1).path("name").asText()).isEqualTo("sidecar");
  }

  @Test
  void directivesDeleteElementsKeysAndPrimitives() {
    JsonNode result = apply("""
        {"metadata": {"labels": {"old": null}, "$deleteFromPrimitiveList/finalizers": ["x"]},
         "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "$patch": "delete"}]}}}}""");
    assertThat(result.at("/metadata/labels").toString()).isEqualTo("{\"app\":\"a\"}");
    assertThat(result.at("/metadata/finalizers").toString()).isEqualTo("[\"y\"]");
    assertThat(result.at("/spec/template/spec/containers").size()).isEqualTo(1);
    assertThat(result.at("/spec/replicas").asInt()).isEqualTo(1);
  }
}
