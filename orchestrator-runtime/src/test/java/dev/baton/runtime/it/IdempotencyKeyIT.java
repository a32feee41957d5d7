package dev.baton.runtime.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A request sent again with the same Idempotency-Key answers what the first answered and changes nothing
 * (docs/design.md#interfaces); an instance holds a bounded number of signals no wait has consumed.
 */
class IdempotencyKeyIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("idempotency");
    h.startRuntime();
    // two waits for the same signal, one after the other
    h.apply("twice", RuntimeHarness.yaml("""
        entity: order
        steps:
          - {name: first, wait: {signal: approve, timeout: 1h}}
          - {name: second, wait: {signal: approve, timeout: 1h}}
        """));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static String signal(UUID id) {
    return "/api/v1/instances/" + id + "/signals/approve";
  }

  static String step(JsonNode instance, String name) {
    for (JsonNode s : instance.get("steps")) {
      if (s.get("name").asText().equals(name)) {
        return s.get("status").asText();
      }
    }
    return "absent";
  }

  /**
   * Fails on the code before: the client's second send of the same signal (it did not get the first answer) was
   * stored again, and the next wait of that name consumed it.
   */
  @Test
  void aSignalSentAgainWithItsKeyIsStoredOnceAndNotConsumedByTheNextWait() throws Exception {
    UUID id = h.startOk("twice", "twice-1");
    RuntimeHarness.Response first = h.post(signal(id), "{\"by\": \"ana\"}", "approve-ana-1");
    assertThat(first.status()).as(first.text()).isEqualTo(202);
    await().atMost(Duration.ofSeconds(10)).until(() -> step(h.instance(id), "second").equals("RUNNING"));

    RuntimeHarness.Response again = h.post(signal(id), "{\"by\": \"ana\"}", "approve-ana-1");
    assertThat(again.status()).isEqualTo(202);
    assertThat(again.text()).as("the first answer, byte for byte").isEqualTo(first.text());
    assertThat(h.count("SELECT count(*) FROM instance_signal WHERE instance_id = '" + id + "'")).isEqualTo(1);
    assertThat(step(h.instance(id), "second")).as("still waiting for a signal of its own").isEqualTo("RUNNING");

    RuntimeHarness.Response other = h.post(signal(id), "{\"by\": \"bo\"}", "approve-bo-1");
    assertThat(other.status()).isEqualTo(202);
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
  }

  /** Fails on the code before: the repeated start answered 200 (found by its business key), not the first 201. */
  @Test
  void aStartSentAgainWithItsKeyAnswersTheFirstAnswer() {
    String path = "/api/v1/namespaces/" + RuntimeHarness.NS + "/workflows/twice/instances";
    String body = "{\"businessKey\": \"twice-2\", \"input\": {}}";
    RuntimeHarness.Response first = h.post(path, body, "start-twice-2");
    RuntimeHarness.Response again = h.post(path, body, "start-twice-2");
    assertThat(first.status()).isEqualTo(201);
    assertThat(again.status()).isEqualTo(201);
    assertThat(again.text()).isEqualTo(first.text());

    RuntimeHarness.Response reused = h.post(path, "{\"businessKey\": \"twice-3\", \"input\": {}}", "start-twice-2");
    assertThat(reused.status()).as(reused.text()).isEqualTo(422);
    assertThat(reused.json().get("message").asText()).contains("was used for another request");
  }

  /** Fails on the code before: signals no wait would consume piled up without bound. */
  @Test
  void anInstanceHoldsABoundedNumberOfSignalsNoWaitHasConsumed() throws Exception {
    UUID id = h.startOk("twice", "twice-4");
    await().atMost(Duration.ofSeconds(10)).until(() -> step(h.instance(id), "first").equals("RUNNING"));
    for (int i = 0; i < 100; i++) {
      assertThat(h.post("/api/v1/instances/" + id + "/signals/other", "{}").status()).isEqualTo(202);
    }
    RuntimeHarness.Response refused = h.post("/api/v1/instances/" + id + "/signals/other", "{}");
    assertThat(refused.status()).as(refused.text()).isEqualTo(409);
    assertThat(refused.json().get("message").asText()).contains("100 signals");
  }
}
