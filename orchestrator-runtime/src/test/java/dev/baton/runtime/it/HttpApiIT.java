package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.NS;
import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.api.v1alpha1.WorkflowStatus;
import dev.baton.httpapi.ApiPaths;
import dev.baton.runtime.it.RuntimeHarness.Response;
import dev.baton.runtime.it.TestWorker.Reply;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every endpoint of docs/design.md#interfaces, its successes and its JSON errors. */
class HttpApiIT {

  static final String BASE = "/api/v1/namespaces/" + NS + "/workflows/";
  static RuntimeHarness h;
  static final AtomicBoolean failCharge = new AtomicBoolean(true);

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("httpapi");
    h.startRuntime(h.settings().toBuilder().maxRequestBytes(4_096).build());
    WorkflowSpec orders = spec("order",
        step("reserve", "api-inventory", "reserve", "release"),
        step("charge", "api-payment", "pay", null));
    orders.setOnFailure(OnFailure.Stop);
    h.apply("orders", orders);
    h.apply("parked", spec("order", step("only", "api-parked", "only", null)));
    h.worker()
        .serve("q.api-inventory.reserve", "api-inventory", "reserve", c -> Reply.success(null))
        .serve("q.api-inventory.release", "api-inventory", "release", c -> Reply.success(null))
        .serve("q.api-payment.pay", "api-payment", "pay",
            c -> failCharge.get() ? Reply.failed("CARD_DECLINED", "insufficient funds") : Reply.success(null))
        .serve("q.api-parked.only", "api-parked", "only", c -> Reply.HOLD);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  static void assertError(Response r, int status, String code, String messagePart) {
    assertThat(r.status()).as(r.text()).isEqualTo(status);
    assertThat(r.json()).as("JSON body: " + r.text()).isNotNull();
    assertThat(r.json().get("error").asText()).isEqualTo(code);
    assertThat(r.json().get("message").asText()).contains(messagePart);
  }

  @Test
  void anOpenApiRecordsWhoActedAsAnonymousWithTheirAddress() {
    Response created = h.start("parked", "api-audit-1", "{}");
    String id = created.json().get("id").asText();
    Response cancelled = h.post("/api/v1/instances/" + id + "/cancel", "");

    assertThat(created.json().get("createdBy").asText()).isEqualTo("anonymous");
    JsonNode audit = cancelled.json().get("audit");
    assertThat(audit).hasSize(2);
    assertThat(audit.get(0).get("action").asText()).isEqualTo("start");
    assertThat(audit.get(1).get("action").asText()).isEqualTo("cancel");
    assertThat(audit.get(1).get("user").asText()).isEqualTo("anonymous");
    assertThat(audit.get(1).get("source").asText()).isEqualTo("127.0.0.1");
    assertThat(h.get(BASE + "parked/instances?businessKey=api-audit-1").json().at("/items/0/createdBy").asText())
        .isEqualTo("anonymous");
  }

  @Test
  void whoamiOnAnOpenApiIsAnonymous() {
    Response me = h.get("/api/v1/whoami");
    assertThat(me.status()).isEqualTo(200);
    assertThat(me.json().get("user").asText()).isEqualTo("anonymous");
    assertThat(me.json().get("auth").asText()).isEqualTo("open");
  }

  @Test
  void startReturns201ThenTheSameInstanceWith200() {
    Response created = h.start("parked", "api-start-1", "{\"amount\": 3}");
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.json().get("id").asText()).isNotBlank();
    assertThat(created.json().get("status").asText()).isEqualTo("RUNNING");
    assertThat(created.json().get("businessKey").asText()).isEqualTo("api-start-1");
    assertThat(created.json().get("input").get("amount").asInt()).isEqualTo(3);

    Response again = h.start("parked", "api-start-1", "{}");
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().get("id")).isEqualTo(created.json().get("id"));

    Response noInput = h.post(BASE + "parked/instances", "{\"businessKey\": \"api-start-2\"}");
    assertThat(noInput.status()).isEqualTo(201);
    assertThat(noInput.json().get("input").size()).isZero();
  }

  @Test
  void startRefusesBadBodiesWithTheReason() {
    String path = BASE + "parked/instances";
    assertError(h.post(path, "{\"businessKey\": "), 400, "BadRequest", "not valid JSON");
    assertError(h.post(path, ""), 400, "BadRequest", "empty");
    assertError(h.post(path, "[1, 2]"), 400, "BadRequest", "must be a JSON object");
    assertError(h.post(path, "{\"input\": {}}"), 400, "BadRequest", "businessKey is missing");
    assertError(h.post(path, "{\"businessKey\": \"\"}"), 400, "BadRequest", "non-empty string");
    assertError(h.post(path, "{\"businessKey\": 42}"), 400, "BadRequest", "non-empty string");
    assertError(h.post(path, "{\"businessKey\": \"k\", \"input\": [1]}"), 400, "BadRequest", "input must be a JSON object");
    assertError(h.post(path, "{\"businessKey\": \"k\", \"input\": \"x\"}"), 400, "BadRequest", "input must be a JSON object");
    assertError(h.post(path, "{\"business_key\": \"k\"}"), 400, "BadRequest", "unknown field 'business_key'");
    assertError(h.post(path, "{\"businessKey\": \"k\", \"input\": {\"blob\": \"" + "x".repeat(5_000) + "\"}}"),
        413, "PayloadTooLarge", "limit");
  }

  @Test
  void startRefusesUnknownAndBrokenWorkflows() {
    assertError(h.start("no-such-workflow", "k", "{}"), 404, "NotFound", "no Workflow 'no-such-workflow'");

    h.apply("broken", spec("order", step("only", "api-broken", "only", null)));
    Workflow w = h.client.resources(Workflow.class).inNamespace(NS).withName("broken").get();
    WorkflowStatus status = new WorkflowStatus();
    status.setConditions(List.of(new ConditionBuilder().withType("Ready").withStatus("False")
        .withReason("UnknownService").withMessage("step 'only' names service 'api-broken', which does not exist")
        .build()));
    w.setStatus(status);
    h.client.resources(Workflow.class).inNamespace(NS).resource(w).updateStatus();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertError(h.start("broken", "k", "{}"), 409, "Conflict", "UnknownService"));
  }

  @Test
  void getShowsWhereAnInstanceIsAndErrorsForBadIds() {
    UUID id = UUID.fromString(h.start("parked", "api-get-1", "{}").json().get("id").asText());
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(h.instance(id).get("steps").get(0).get("status").asText()).isEqualTo("RUNNING"));
    JsonNode i = h.instance(id);
    for (String field : List.of("id", "namespace", "workflow", "revision", "businessKey", "status", "currentStep",
        "createdAt", "updatedAt", "steps", "attempt", "since", "lastError")) {
      assertThat(i.has(field)).as(field).isTrue();
    }
    assertThat(i.get("currentStep").asText()).isEqualTo("only");
    assertThat(i.get("namespace").asText()).isEqualTo(NS);
    JsonNode s = i.get("steps").get(0);
    for (String field : List.of("name", "status", "attempt", "startedAt", "finishedAt", "output", "error", "kind",
        "action")) {
      assertThat(s.has(field)).as(field).isTrue();
    }

    assertError(h.get("/api/v1/instances/" + UUID.randomUUID()), 404, "NotFound", "no instance");
    assertError(h.get("/api/v1/instances/not-a-uuid"), 400, "BadRequest", "not an instance id");
    assertError(h.get("/api/v1/nothing-here"), 404, "NotFound", "no such endpoint");
  }

  @Test
  void listFiltersAndValidatesItsParameters() {
    h.start("parked", "api-list-1", "{}");
    h.start("parked", "api-list-2", "{}");
    Response all = h.get(BASE + "parked/instances?limit=500");
    assertThat(all.status()).isEqualTo(200);
    assertThat(all.json().get("items").size()).isGreaterThanOrEqualTo(2);
    Response one = h.get(BASE + "parked/instances?businessKey=api-list-2");
    assertThat(one.json().get("items")).hasSize(1);
    assertThat(one.json().get("items").get(0).get("businessKey").asText()).isEqualTo("api-list-2");
    Response running = h.get(BASE + "parked/instances?status=RUNNING&limit=1");
    assertThat(running.json().get("items")).hasSize(1);
    assertThat(h.get(BASE + "parked/instances?status=SUCCEEDED").json().get("items")).isEmpty();

    assertError(h.get(BASE + "parked/instances?status=DONE"), 400, "BadRequest", "not one of");
    assertError(h.get(BASE + "parked/instances?limit=0"), 400, "BadRequest", "limit");
    assertError(h.get(BASE + "parked/instances?limit=501"), 400, "BadRequest", "limit");
    assertError(h.get(BASE + "parked/instances?limit=ten"), 400, "BadRequest", "limit");
    assertError(h.get(BASE + "nothing/instances"), 404, "NotFound", "no Workflow 'nothing'");
  }

  @Test
  void cancelStopsActiveInstancesOnly() {
    UUID id = UUID.fromString(h.start("parked", "api-cancel-1", "{}").json().get("id").asText());
    Response cancelled = h.post("/api/v1/instances/" + id + "/cancel", "");
    assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
    assertThat(cancelled.json().get("status").asText()).isEqualTo("CANCELLED");
    assertThat(cancelled.json().get("steps").get(0).get("status").asText()).isEqualTo("CANCELLED");
    assertThat(h.post("/api/v1/instances/" + id + "/cancel", "").status()).isEqualTo(200); // idempotent

    assertError(h.post("/api/v1/instances/" + UUID.randomUUID() + "/cancel", ""), 404, "NotFound", "no instance");
    assertError(h.post("/api/v1/instances/xyz/cancel", ""), 400, "BadRequest", "not an instance id");
  }

  @Test
  void retrySendsTheFailedStepAgainAndRefusesOtherStatuses() {
    failCharge.set(true);
    UUID id = UUID.fromString(h.start("orders", "api-retry-1", "{}").json().get("id").asText());
    JsonNode failed = h.awaitStatus(id, "FAILED", Duration.ofSeconds(10));
    assertThat(failed.get("lastError").get("reason").asText()).isEqualTo("insufficient funds");
    assertError(h.post("/api/v1/instances/" + id + "/cancel", ""), 409, "Conflict", "only RUNNING or COMPENSATING");

    failCharge.set(false);
    Response retried = h.post("/api/v1/instances/" + id + "/retry", "");
    assertThat(retried.status()).as(retried.text()).isEqualTo(200);
    JsonNode done = h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
    JsonNode last = done.get("steps").get(done.get("steps").size() - 1);
    assertThat(last.get("name").asText()).isEqualTo("charge");
    assertThat(last.get("attempt").asInt()).isEqualTo(2);

    assertError(h.post("/api/v1/instances/" + id + "/retry", ""), 409, "Conflict", "only FAILED instances");
    assertError(h.post("/api/v1/instances/" + UUID.randomUUID() + "/retry", ""), 404, "NotFound", "no instance");
  }

  @Test
  void healthAndMetrics() {
    Response health = h.get("/healthz");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.json().get("status").asText()).isEqualTo("UP");
    assertThat(health.json().get("database").asText()).isEqualTo("UP");
    assertThat(health.json().get("broker").asText()).isEqualTo("UP");
    assertThat(health.json().get("lanes").asText()).isEqualTo("UP");
    Response live = h.get("/livez");
    assertThat(live.status()).isEqualTo(200);
    assertThat(live.json().get("status").asText()).isEqualTo("UP");

    failCharge.set(false);
    UUID id = UUID.fromString(h.start("orders", "api-metrics-1", "{}").json().get("id").asText());
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      String metrics = h.get("/metrics").text();
      assertThat(metrics).contains("baton_instances{", "baton_step_latency_seconds_bucket",
          "baton_events_processed_total", "baton_outbox_pending", "baton_outbox_lag_seconds",
          "baton_instances_started_total", "baton_outbox_published_total");
      assertThat(metrics).containsPattern(
          "baton_instances\\{status=\"SUCCEEDED\",workflow=\"orders\",workflow_namespace=\"default\"\\} [1-9]");
      // The counters that name a workflow name its namespace too (same-named Workflows of two namespaces apart).
      assertThat(metrics).containsPattern(
          "baton_instances_started_total\\{workflow=\"orders\",workflow_namespace=\"default\"\\} [1-9]");
      assertThat(metrics).containsPattern(
          "baton_events_processed_total\\{result=\"success\",workflow=\"orders\",workflow_namespace=\"default\"\\}");
    });
  }

  @Test
  void metricsOfTheJvmThePoolTheBrokerClientAndTheHttpServer() {
    failCharge.set(false);
    UUID id = UUID.fromString(h.start("orders", "api-metrics-2", "{}").json().get("id").asText());
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
    h.get("/api/v1/instances/" + id);
    h.get("/no/such/path");
    // Micrometer names the pause timer at the first collection it hears of; with a roomy heap none may have come
    // since this runtime started (CI saw that), so ask for one: the runtime runs in this JVM.
    System.gc();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      String metrics = h.get("/metrics").text();
      assertThat(metrics).contains("jvm_memory_used_bytes{", "jvm_gc_pause_seconds", "jvm_gc_memory_allocated_bytes_total",
          "jvm_threads_live_threads",
          "jvm_classes_loaded_classes", "process_cpu_usage", "process_uptime_seconds");
      assertThat(metrics).contains("hikaricp_connections_active{pool=\"baton-runtime\"}",
          "hikaricp_connections_pending{pool=\"baton-runtime\"}", "hikaricp_connections_acquire_seconds_count");
      assertThat(metrics).containsPattern("rabbitmq_client_connections [1-9]")
          .containsPattern("rabbitmq_client_published_total [1-9]")
          .containsPattern("rabbitmq_client_consumed_total [1-9]")
          .containsPattern("rabbitmq_client_acknowledged_total [1-9]")
          .containsPattern("rabbitmq_client_acknowledged_published_total [1-9]")
          .contains("rabbitmq_client_channels ");
      // Requests by route template: the instance's id is no label.
      assertThat(metrics).contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"SUCCESS\","
          + "status=\"200\",uri=\"" + ApiPaths.INSTANCE + "\"}");
      assertThat(metrics).contains("http_server_requests_seconds_count{method=\"GET\",outcome=\"CLIENT_ERROR\","
          + "status=\"404\",uri=\"NOT_FOUND\"}");
      assertThat(metrics).doesNotContain(id.toString());
    });
  }

  @Test
  void countsPerWorkflowForTheOperatorsLiveColumns() {
    failCharge.set(false);
    UUID id = UUID.fromString(h.start("orders", "api-counts-1", "{}").json().get("id").asText());
    h.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(10));
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      Response counts = h.get("/api/v1/counts");
      assertThat(counts.status()).isEqualTo(200);
      var orders = java.util.stream.StreamSupport.stream(counts.json().get("items").spliterator(), false)
          .filter(i -> i.get("namespace").asText().equals("default") && i.get("workflow").asText().equals("orders"))
          .findFirst().orElseThrow(() -> new AssertionError("no counts for default/orders yet")); // awaited again
      assertThat(orders.get("succeeded").asLong()).isPositive();
      assertThat(orders.fieldNames()).toIterable()
          .contains("running", "succeeded", "failed", "compensated", "cancelled");
    });
  }

  /**
   * The operator keeps every revision's result keys bound while instances of it run: after an edit that moves the
   * step to another service, renames its action and changes the entity, both revisions are listed with the bindings
   * each needs (docs/design.md#runtime-semantics, Versioning).
   */
  @Test
  void routesOfEveryRevisionWithUnfinishedInstances() {
    // no worker: the instances stay RUNNING at their first step
    h.apply("routed", spec("order", step("only", "api-routed", "hold", null)));
    assertThat(h.start("routed", "api-routes-1", "{}").json().get("revision").asInt()).isEqualTo(1);
    h.apply("routed", spec("parcel", step("only", "api-routed-2", "keep", null)));
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger(1);
    await().atMost(Duration.ofSeconds(10)).until(() ->
        h.start("routed", "api-routes-" + n.incrementAndGet(), "{}").json().get("revision").asInt() == 2);

    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      Response routes = h.get("/api/v1/routes");
      assertThat(routes.status()).isEqualTo(200);
      JsonNode routed = java.util.stream.StreamSupport.stream(routes.json().get("items").spliterator(), false)
          .filter(i -> i.get("namespace").asText().equals(NS) && i.get("workflow").asText().equals("routed"))
          .findFirst().orElseThrow(() -> new AssertionError("no routes for routed yet: " + routes.text()));
      assertThat(routed.get("revisions").toString()).isEqualTo("[1,2]");
      List<String> bindings = java.util.stream.StreamSupport.stream(routed.get("bindings").spliterator(), false)
          .map(b -> b.get("exchange").asText() + " " + b.get("routingKey").asText()).toList();
      assertThat(bindings).containsExactlyInAnyOrder(
          "api-routed.event.topic.ex order.hold.success", "api-routed.event.topic.ex order.hold.failed",
          "api-routed.event.topic.ex order.hold.error", "api-routed.event.topic.ex order.hold.expired",
          "api-routed-2.event.topic.ex parcel.keep.success", "api-routed-2.event.topic.ex parcel.keep.failed",
          "api-routed-2.event.topic.ex parcel.keep.error", "api-routed-2.event.topic.ex parcel.keep.expired");
    });
  }
}
