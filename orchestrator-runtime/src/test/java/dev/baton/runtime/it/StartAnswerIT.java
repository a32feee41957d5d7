package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.RuntimeHarness.Response;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A start answers from what its transaction wrote, without reading the instance back: the answer must be what a read
 * right after shows, for every kind of first step (no worker answers here, so nothing moves in between).
 */
class StartAnswerIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("startanswer");
    h.startRuntime();
    h.apply("linear", yaml("""
        {entity: order, steps: [
          {name: first, service: sa-svc, command: first, timeout: 10m},
          {name: second, service: sa-svc, command: second}]}
        """));
    h.apply("fanned", yaml("""
        {entity: order, steps: [
          {name: both, parallel: [
            {steps: [{name: left, service: sa-svc, command: left, timeout: 10m}]},
            {steps: [{name: right, service: sa-svc, command: right, timeout: 5m}]}]}]}
        """));
    h.apply("routed", yaml("""
        {entity: order, steps: [
          {name: route, choice: [{when: "input.amount > 10", steps: [{name: big, service: sa-svc, command: big}]}],
           otherwise: [{name: small, service: sa-svc, command: small}]}]}
        """));
    h.apply("paused", yaml("""
        {entity: order, steps: [{name: pause, delay: 1h}, {name: after, service: sa-svc, command: after}]}
        """));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void theAnswerOfAStartIsWhatAReadShows() {
    for (String workflow : new String[] {"linear", "fanned", "routed", "paused"}) {
      Response created = h.start(workflow, workflow + "-1", "{\"amount\": 50, \"note\": {\"b\": 1, \"a\": [1, 2]}}");
      assertThat(created.status()).as(created.text()).isEqualTo(201);
      JsonNode read = h.instance(UUID.fromString(created.json().get("id").asText()));
      assertThat(created.json()).as(workflow).isEqualTo(read);

      Response again = h.start(workflow, workflow + "-1", "{}");
      assertThat(again.status()).isEqualTo(200);
      assertThat(again.json()).as(workflow + ", started again").isEqualTo(read);
    }
  }

  @Test
  void aBatchAnswersWithTheStatusAReadShows() {
    Response r = h.post("/api/v1/namespaces/" + RuntimeHarness.NS + "/workflows/fanned/instances/batch",
        "{\"instances\": [{\"businessKey\": \"b-2\", \"input\": {}}, {\"businessKey\": \"b-1\", \"input\": {}},"
            + " {\"businessKey\": \"b-2\", \"input\": {}}]}");
    assertThat(r.status()).as(r.text()).isEqualTo(200);
    JsonNode results = r.json().get("results");
    assertThat(results.get(0).get("created").asBoolean()).isTrue();
    assertThat(results.get(1).get("created").asBoolean()).isTrue();
    assertThat(results.get(2).get("created").asBoolean()).isFalse();
    assertThat(results.get(2).get("id")).isEqualTo(results.get(0).get("id"));
    for (JsonNode result : results) {
      JsonNode read = h.instance(UUID.fromString(result.get("id").asText()));
      assertThat(result.get("status")).isEqualTo(read.get("status"));
    }
  }
}
