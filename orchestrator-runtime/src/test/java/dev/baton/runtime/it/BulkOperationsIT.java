package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.json;
import static dev.baton.runtime.it.RuntimeHarness.yaml;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bulk operations ({@code POST /api/v1/operations}) over the real database: a dry run counts, a retry of every failed
 * instance of a Workflow, a signal and a cancel by business key prefix, progress in the API, an operation that carries
 * on after a runtime restart from where it stopped, and the requests it refuses.
 */
class BulkOperationsIT {

  static RuntimeHarness h;
  static final AtomicBoolean declining = new AtomicBoolean(true);

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("bulk");
    h.startRuntime();
    h.apply("charge", yaml("""
        {entity: order, onFailure: Stop, steps: [{name: charge, service: bo-pay, command: charge}]}
        """));
    h.apply("approve", yaml("""
        {entity: order, steps: [{name: approval, wait: {signal: approve}}]}
        """));
    h.worker().serve("q.bo-pay.charge", "bo-pay", "charge", c -> declining.get()
        ? Reply.failed("CARD_DECLINED", "declined") : Reply.success(json("{\"paid\": true}")));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static JsonNode post(String body, int status) {
    RuntimeHarness.Response r = h.post("/api/v1/operations", body);
    assertThat(r.status()).as(r.text()).isEqualTo(status);
    return r.json();
  }

  static JsonNode awaitDone(String id) {
    await().atMost(Duration.ofSeconds(60)).until(() ->
        "DONE".equals(h.get("/api/v1/operations/" + id).json().get("state").asText()));
    return h.get("/api/v1/operations/" + id).json();
  }

  static void startMany(String workflow, String prefix, int n) {
    for (int i = 0; i < n; i++) {
      assertThat(h.start(workflow, prefix + i, "{}").status()).isEqualTo(201);
    }
  }

  @Test
  void aDryRunCountsAndARetryOfEveryFailedInstanceRetriesThemAllOnceAsItsCreator() throws Exception {
    startMany("charge", "card-", 30);
    await().atMost(Duration.ofSeconds(20)).until(() -> h.count(
        "SELECT count(*) FROM workflow_instance WHERE workflow = 'charge' AND status = 'FAILED'") == 30);
    String filter = "{\"namespace\": \"default\", \"workflow\": \"charge\", \"status\": \"FAILED\","
        + " \"errorCode\": \"CARD_DECLINED\"}";

    long operations = h.count("SELECT count(*) FROM bulk_operation");
    JsonNode dry = post("{\"action\": \"retry\", \"filter\": " + filter + ", \"dryRun\": true}", 200);
    assertThat(dry.get("state").asText()).isEqualTo("DRY_RUN");
    assertThat(dry.get("matched").asLong()).isEqualTo(30);
    assertThat(h.count("SELECT count(*) FROM bulk_operation")).as("a dry run stores nothing").isEqualTo(operations);

    declining.set(false);
    JsonNode created = post("{\"action\": \"retry\", \"filter\": " + filter + "}", 202);
    assertThat(created.get("matched").asLong()).isEqualTo(30);
    JsonNode done = awaitDone(created.get("id").asText());
    assertThat(done.get("done").asLong()).isEqualTo(30);
    assertThat(done.get("failed").asLong()).isZero();
    assertThat(done.get("createdBy").asText()).isEqualTo("anonymous");
    await().atMost(Duration.ofSeconds(20)).until(() -> h.count(
        "SELECT count(*) FROM workflow_instance WHERE workflow = 'charge' AND status = 'SUCCEEDED'") == 30);
    assertThat(h.count("SELECT count(*) FROM instance_audit WHERE action = 'retry'")).isEqualTo(30);
    assertThat(h.scalar("SELECT source FROM instance_audit WHERE action = 'retry' LIMIT 1"))
        .isEqualTo("bulk operation " + created.get("id").asText());
  }

  @Test
  void aSignalAndACancelByKeyPrefixActOnlyOnTheirInstances() {
    startMany("approve", "sig-", 7);
    startMany("approve", "stop-", 4);

    JsonNode signal = post("{\"action\": \"signal\", \"signal\": \"approve\", \"body\": {\"by\": \"ops\"},"
        + " \"filter\": {\"workflow\": \"approve\", \"businessKeyPrefix\": \"sig-\"}}", 202);
    JsonNode cancel = post("{\"action\": \"cancel\", \"compensate\": true,"
        + " \"filter\": {\"workflow\": \"approve\", \"businessKeyPrefix\": \"stop-\"}}", 202);

    assertThat(awaitDone(signal.get("id").asText()).get("done").asLong()).isEqualTo(7);
    assertThat(awaitDone(cancel.get("id").asText()).get("done").asLong()).isEqualTo(4);
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
      assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE business_key LIKE 'sig-%'"
          + " AND status = 'SUCCEEDED'")).isEqualTo(7);
      assertThat(h.count("SELECT count(*) FROM workflow_instance WHERE business_key LIKE 'stop-%'"
          + " AND status = 'CANCELLED'")).isEqualTo(4);
    });
  }

  @Test
  void anOperationCarriesOnAfterARestartFromWhereItStoppedAndActsOnEachInstanceOnce() throws Exception {
    startMany("approve", "many-", 160);
    JsonNode created = post("{\"action\": \"signal\", \"signal\": \"approve\","
        + " \"filter\": {\"businessKeyPrefix\": \"many-\"}}", 202);
    String id = created.get("id").asText();
    await().atMost(Duration.ofSeconds(30)).until(() -> h.get("/api/v1/operations/" + id).json().get("done")
        .asLong() >= 50);
    h.stopRuntime();
    long atStop = h.count("SELECT done FROM bulk_operation WHERE id = '" + id + "'");
    System.out.printf("BULK stopped with %d of 160 signalled%n", atStop);

    h.startRuntime();
    JsonNode done = awaitDone(id);
    assertThat(done.get("done").asLong() + done.get("failed").asLong()).isEqualTo(160);
    await().atMost(Duration.ofSeconds(20)).until(() -> h.count("SELECT count(*) FROM workflow_instance"
        + " WHERE business_key LIKE 'many-%' AND status = 'SUCCEEDED'") == 160);
    // Each instance got the signal once (keyed by operation and instance), whatever was acted on twice.
    assertThat(h.count("SELECT count(*) FROM instance_signal s JOIN workflow_instance i ON i.id = s.instance_id"
        + " WHERE i.business_key LIKE 'many-%'")).isEqualTo(160);
  }

  @Test
  void aRequestWithoutAFilterOrWithAWrongActionIsA400AndAnUnknownOperationA404() {
    assertThat(post("{\"action\": \"retry\", \"filter\": {}}", 400).get("message").asText())
        .contains("filter must be an object with at least one of the search's fields");
    assertThat(post("{\"action\": \"delete\", \"filter\": {\"workflow\": \"charge\"}}", 400).get("message").asText())
        .contains("action must be one of cancel, retry, signal");
    assertThat(post("{\"action\": \"signal\", \"filter\": {\"workflow\": \"approve\"}}", 400).get("message").asText())
        .contains("a signal operation needs signal");
    assertThat(post("{\"action\": \"retry\", \"filter\": {\"stauts\": \"FAILED\"}}", 400).get("message").asText())
        .contains("unknown parameter 'stauts'");
    assertThat(h.get("/api/v1/operations/" + java.util.UUID.randomUUID()).status()).isEqualTo(404);
  }
}
