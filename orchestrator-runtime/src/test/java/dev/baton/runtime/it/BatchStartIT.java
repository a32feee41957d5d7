package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.RuntimeHarness.Response;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST .../instances/batch}: many starts in one transaction, answered in order, idempotent per business key
 * like a single start; a bad item refuses the whole batch and starts nothing.
 */
class BatchStartIT {

  private static final String BATCH = "/api/v1/namespaces/default/workflows/batched/instances/batch";

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("batch");
    h.startRuntime();
    h.apply("batched", spec("order", step("only", "bt-worker", "work", null)));
    h.worker().serve("q.bt-worker.work", "bt-worker", "work",
        c -> Reply.success(RuntimeHarness.JSON.createObjectNode().put("done", true)));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void a_batch_starts_each_new_key_once_answers_in_order_and_every_instance_runs() throws Exception {
    UUID existing = h.startOk("batched", "b-existing");

    Response r = h.post(BATCH, "{\"instances\": [{\"businessKey\": \"b-1\", \"input\": {\"n\": 1}},"
        + " {\"businessKey\": \"b-existing\"}, {\"businessKey\": \"b-2\"}, {\"businessKey\": \"b-1\"}]}");

    assertThat(r.status()).as(r.text()).isEqualTo(200);
    JsonNode results = r.json().get("results");
    assertThat(results).hasSize(4);
    assertThat(results.get(0).get("created").asBoolean()).isTrue();
    assertThat(results.get(1).get("id").asText()).isEqualTo(existing.toString());
    assertThat(results.get(1).get("created").asBoolean()).isFalse();
    assertThat(results.get(2).get("created").asBoolean()).isTrue();
    assertThat(results.get(3).get("id")).isEqualTo(results.get(0).get("id"));
    assertThat(results.get(3).get("created").asBoolean()).isFalse();
    assertThat(results.get(0).get("status").asText()).isEqualTo("RUNNING");
    for (int i : new int[] {0, 2}) {
      JsonNode done = h.awaitStatus(UUID.fromString(results.get(i).get("id").asText()), "SUCCEEDED",
          Duration.ofSeconds(30));
      assertThat(done.get("businessKey").asText()).isEqualTo(i == 0 ? "b-1" : "b-2");
    }
    assertThat(h.instance(UUID.fromString(results.get(0).get("id").asText())).get("input").get("n").asInt())
        .isEqualTo(1);
  }

  @Test
  void a_thousand_starts_in_one_request_each_get_an_instance() throws Exception {
    String items = IntStream.range(0, 1000).mapToObj(i -> "{\"businessKey\": \"k-" + i + "\"}")
        .collect(Collectors.joining(","));
    Response r = h.post(BATCH, "{\"instances\": [" + items + "]}");

    assertThat(r.status()).as(r.text()).isEqualTo(200);
    assertThat(r.json().get("results")).hasSize(1000).allSatisfy(x -> assertThat(x.get("created").asBoolean()).isTrue());
    assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE business_key LIKE 'k-%'")).isEqualTo(1000);
  }

  @Test
  void a_bad_item_refuses_the_whole_batch_naming_it_and_starts_nothing() throws Exception {
    assertError(h.post(BATCH, "{\"instances\": [{\"businessKey\": \"ok-1\"}, {\"input\": {}}]}"),
        "instances[1].businessKey is missing");
    assertError(h.post(BATCH, "{\"instances\": [{\"businessKey\": \"ok-2\", \"input\": [1]}]}"),
        "instances[0].input must be a JSON object");
    assertError(h.post(BATCH, "{\"instances\": []}"), "a batch takes 1 to 1000");
    String tooMany = IntStream.range(0, 1001).mapToObj(i -> "{\"businessKey\": \"t-" + i + "\"}")
        .collect(Collectors.joining(","));
    assertError(h.post(BATCH, "{\"instances\": [" + tooMany + "]}"), "a batch takes 1 to 1000");
    assertError(h.post(BATCH, "{\"starts\": []}"), "unknown field 'starts'");
    assertError(h.post(BATCH, "[]"), "must be a JSON object");

    assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE business_key LIKE 'ok-%'"
        + " OR business_key LIKE 't-%'")).isZero();
  }

  private static void assertError(Response r, String messagePart) {
    assertThat(r.status()).as(r.text()).isEqualTo(400);
    assertThat(r.json().get("error").asText()).isEqualTo("BadRequest");
    assertThat(r.json().get("message").asText()).contains(messagePart);
  }
}
