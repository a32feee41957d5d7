package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.NS;
import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.v1alpha1.OnFailure;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.engine.AuditLog;
import dev.baton.runtime.http.auth.AuthMode;
import dev.baton.runtime.it.RuntimeHarness.Response;
import dev.baton.runtime.it.TestWorker.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The runtime with {@code BATON_AUTH=kubernetes} against a Kubernetes API that answers TokenReviews and
 * SubjectAccessReviews ({@link FakeClusterAuth}): who may do what with instances is RBAC's, and every start, signal,
 * retry and cancel says who did it — on the instance and in one audit log line, never with the token.
 */
class KubernetesAuthIT {

  static final String CI = "system:serviceaccount:" + NS + ":ci";
  static final String CI_TOKEN = "eyJhbGciOiJSUzI1NiJ9.ci-in-team-a.c2lnbmF0dXJl";
  static final String READER = "system:serviceaccount:" + NS + ":dashboard";
  static final String READER_TOKEN = "eyJhbGciOiJSUzI1NiJ9.dashboard.c2lnbmF0dXJl";
  static final String OPERATOR = "system:serviceaccount:baton-system:baton-operator";
  static final String OPERATOR_TOKEN = "eyJhbGciOiJSUzI1NiJ9.operator.c2lnbmF0dXJl";
  static final String BASE = "/api/v1/namespaces/" + NS + "/workflows/";
  static final String TEAM_B = "team-b";

  static final FakeClusterAuth CLUSTER = new FakeClusterAuth()
      .token(CI_TOKEN, CI).token(READER_TOKEN, READER).token(OPERATOR_TOKEN, OPERATOR)
      .allow(CI, "create", "workflows/instances", NS)
      .allow(CI, "get", "workflows/instances", NS)
      .allow(CI, "list", "workflows/instances", NS)
      .allow(CI, "update", "workflows/instances", NS)
      .allow(CI, "delete", "workflows/instances", NS)
      .allow(READER, "get", "workflows/instances", NS)
      .allow(READER, "list", "workflows/instances", NS)
      .allow(OPERATOR, "list", "workflows/instances", FakeClusterAuth.EVERY_NAMESPACE);
  static final AtomicBoolean FAIL_PACKING = new AtomicBoolean(true);

  static RuntimeHarness h;
  final ListAppender<ILoggingEvent> audit = new ListAppender<>();
  final ListAppender<ILoggingEvent> everything = new ListAppender<>();

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("k8sauth", CLUSTER);
    h.startRuntime(h.settings().toBuilder().auth(AuthMode.KUBERNETES).build());
    h.apply("holding", spec("order", step("reserve", "auth-inventory", "reserve", null)));
    WorkflowSpec parcels = spec("parcel", step("pack", "auth-warehouse", "pack", null));
    parcels.setOnFailure(OnFailure.Stop);
    h.apply("parcels", parcels);
    h.worker()
        .serve("q.auth-inventory.reserve", "auth-inventory", "reserve", c -> Reply.HOLD)
        .serve("q.auth-warehouse.pack", "auth-warehouse", "pack",
            c -> FAIL_PACKING.get() ? Reply.failed("NO_BOXES", "out of boxes") : Reply.success(null));
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @BeforeEach
  void listen() {
    audit.start();
    everything.start();
    // As the runtime's own log configuration has it: the audit at INFO, whatever the other levels.
    ((Logger) LoggerFactory.getLogger(AuditLog.LOGGER)).setLevel(Level.INFO);
    ((Logger) LoggerFactory.getLogger(AuditLog.LOGGER)).addAppender(audit);
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(everything);
  }

  @AfterEach
  void stopListening() {
    ((Logger) LoggerFactory.getLogger(AuditLog.LOGGER)).detachAppender(audit);
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).detachAppender(everything);
    assertThat(everything.list).as("no log line holds a token")
        .noneMatch(e -> e.getFormattedMessage().contains(CI_TOKEN) || e.getFormattedMessage().contains(READER_TOKEN)
            || e.getFormattedMessage().contains(OPERATOR_TOKEN));
  }

  static String body(String businessKey) {
    return "{\"businessKey\":\"" + businessKey + "\",\"input\":{}}";
  }

  UUID startAsCi(String workflow, String businessKey) {
    Response r = h.post(BASE + workflow + "/instances", body(businessKey), CI_TOKEN, null);
    assertThat(r.status()).as(r.text()).isEqualTo(201);
    return UUID.fromString(r.json().get("id").asText());
  }

  static List<String> actions(JsonNode instance) {
    List<String> out = new ArrayList<>();
    instance.get("audit").forEach(a -> out.add(a.get("action").asText() + " by " + a.get("user").asText()
        + (a.get("detail").isNull() ? "" : " (" + a.get("detail").asText() + ")")));
    return out;
  }

  List<String> auditLines() {
    return audit.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  @Test
  void aTokenAllowedInItsNamespaceStartsThereAndTheInstanceSaysWhoStartedIt() {
    Response created = h.post(BASE + "holding/instances", body("k8s-start-1"), CI_TOKEN, null);

    assertThat(created.status()).as(created.text()).isEqualTo(201);
    assertThat(created.json().get("createdBy").asText()).isEqualTo(CI);
    assertThat(actions(created.json())).containsExactly("start by " + CI);
    JsonNode entry = created.json().at("/audit/0");
    assertThat(entry.get("source").asText()).isEqualTo("127.0.0.1");
    assertThat(entry.get("at").asText()).isEqualTo(created.json().get("createdAt").asText());

    String id = created.json().get("id").asText();
    JsonNode read = h.get("/api/v1/instances/" + id, READER_TOKEN).json();
    assertThat(read.get("createdBy").asText()).isEqualTo(CI);
    assertThat(read.get("audit")).isEqualTo(created.json().get("audit"));
    JsonNode listed = h.get(BASE + "holding/instances?businessKey=k8s-start-1", READER_TOKEN).json();
    assertThat(listed.at("/items/0/createdBy").asText()).isEqualTo(CI);
    assertThat(listed.at("/items/0").has("audit")).isFalse();
    assertThat(auditLines()).containsExactly("action=start outcome=created user=" + CI + " namespace=" + NS
        + " workflow=holding instance=" + id + " source=127.0.0.1 detail=-");
  }

  @Test
  void theSameTokenIsRefusedInAnotherTeamsNamespaceWithA403NamingTheVerbResourceAndNamespace() {
    Response refused = h.post("/api/v1/namespaces/" + TEAM_B + "/workflows/holding/instances", body("k8s-b-1"),
        CI_TOKEN, null);

    assertThat(refused.status()).as(refused.text()).isEqualTo(403);
    assertThat(refused.json().get("error").asText()).isEqualTo("Forbidden");
    assertThat(refused.json().get("message").asText()).isEqualTo(CI + " may not create workflows/instances in"
        + " namespace team-b (Workflow holding)");
    assertThat(auditLines()).singleElement().asString()
        .startsWith("action=create outcome=forbidden user=" + CI + " namespace=team-b workflow=holding");
  }

  @Test
  void withoutATokenOrWithOneTheClusterDoesNotKnowTheAnswerIs401() {
    Response none = h.get(BASE + "holding/instances");
    assertThat(none.status()).isEqualTo(401);
    assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer realm=\"baton\"");
    assertThat(none.json().get("message").asText()).contains("kubectl create token");

    Response bad = h.get(BASE + "holding/instances", "eyJhbGciOiJSUzI1NiJ9.forged.c2lnbmF0dXJl");
    assertThat(bad.status()).isEqualTo(401);
    assertThat(bad.headers().firstValue("WWW-Authenticate"))
        .hasValue("Bearer realm=\"baton\", error=\"invalid_token\"");
    assertThat(bad.text()).doesNotContain("forged");
  }

  @Test
  void aReaderMayReadButACancelIsRefusedNamingTheInstancesWorkflow() {
    UUID id = startAsCi("holding", "k8s-read-1");

    assertThat(h.get("/api/v1/instances/" + id, READER_TOKEN).status()).isEqualTo(200);
    Response cancel = h.post("/api/v1/instances/" + id + "/cancel", "", READER_TOKEN, null);
    assertThat(cancel.status()).isEqualTo(403);
    assertThat(cancel.json().get("message").asText())
        .isEqualTo(READER + " may not delete workflows/instances in namespace " + NS + " (Workflow holding)");
    assertThat(h.get("/api/v1/instances/" + UUID.randomUUID(), READER_TOKEN).status())
        .as("an instance that is not there").isEqualTo(404);
  }

  @Test
  void signalsCancelsAndRetriesAreEachRecordedWithWhoDidThem() throws Exception {
    UUID held = startAsCi("holding", "k8s-actions-1");
    assertThat(h.post("/api/v1/instances/" + held + "/signals/approved", "{\"by\":\"ann\"}", CI_TOKEN, null)
        .status()).isEqualTo(202);
    Response cancelled = h.post("/api/v1/instances/" + held + "/cancel", "{\"compensate\":false}", CI_TOKEN, null);
    assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
    assertThat(cancelled.json().get("status").asText()).isEqualTo("CANCELLED");
    assertThat(actions(cancelled.json())).containsExactly("start by " + CI, "signal by " + CI + " (approved)",
        "cancel by " + CI);
    assertThat(h.post("/api/v1/instances/" + held + "/cancel", "", CI_TOKEN, null).status())
        .as("a second cancel changes nothing").isEqualTo(200);
    assertThat(actions(h.get("/api/v1/instances/" + held, CI_TOKEN).json())).as("and records nothing").hasSize(3);

    FAIL_PACKING.set(true);
    UUID failed = startAsCi("parcels", "k8s-actions-2");
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(h.status(failed)).isEqualTo("FAILED"));
    FAIL_PACKING.set(false);
    assertThat(h.post("/api/v1/instances/" + failed + "/retry", "", CI_TOKEN, null).status()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(h.status(failed)).isEqualTo("SUCCEEDED"));
    assertThat(actions(h.get("/api/v1/instances/" + failed, CI_TOKEN).json()))
        .containsExactly("start by " + CI, "retry by " + CI);

    assertThat(auditLines()).anyMatch(l -> l.startsWith("action=signal outcome=done user=" + CI)
        && l.endsWith("detail=approved"))
        .anyMatch(l -> l.startsWith("action=cancel outcome=done user=" + CI) && l.endsWith("detail=-"))
        .anyMatch(l -> l.startsWith("action=retry outcome=done user=" + CI + " namespace=" + NS + " workflow=parcels"));
  }

  @Test
  void aRequestSentAgainWithItsIdempotencyKeyIsRecordedOnce() throws Exception {
    String start = BASE + "holding/instances";
    Response first = h.post(start, body("k8s-idem-1"), CI_TOKEN, "idem-start-1");
    Response again = h.post(start, body("k8s-idem-1"), CI_TOKEN, "idem-start-1");
    assertThat(again.headers().firstValue("Idempotency-Replayed")).hasValue("true");
    String id = first.json().get("id").asText();

    String signal = "/api/v1/instances/" + id + "/signals/approved";
    assertThat(h.post(signal, "{}", CI_TOKEN, "idem-signal-1").status()).isEqualTo(202);
    assertThat(h.post(signal, "{}", CI_TOKEN, "idem-signal-1").status()).isEqualTo(202);

    assertThat(actions(h.get("/api/v1/instances/" + id, CI_TOKEN).json()))
        .containsExactly("start by " + CI, "signal by " + CI + " (approved)");
    assertThat(h.count("SELECT count(*) FROM instance_audit WHERE instance_id = '" + id + "'")).isEqualTo(2);
    assertThat(auditLines()).hasSize(2);
  }

  @Test
  void aBatchStartRecordsEachInstanceAndOneLine() throws Exception {
    Response batch = h.post(BASE + "holding/instances/batch", "{\"instances\":[{\"businessKey\":\"k8s-batch-1\"},"
        + "{\"businessKey\":\"k8s-batch-2\"}]}", CI_TOKEN, null);
    assertThat(batch.status()).as(batch.text()).isEqualTo(200);

    for (JsonNode r : batch.json().get("results")) {
      assertThat(actions(h.get("/api/v1/instances/" + r.get("id").asText(), CI_TOKEN).json()))
          .containsExactly("start by " + CI + " (batch)");
    }
    assertThat(auditLines()).containsExactly("action=start outcome=created user=" + CI + " namespace=" + NS
        + " workflow=holding instance=- source=127.0.0.1 detail=\"batch of 2: 2 created\"");
  }

  @Test
  void aSearchIsAListInItsNamespaceAndAcrossTheClusterOnlyForWhomRbacAllowsIt() {
    startAsCi("holding", "k8s-search-1");

    Response mine = h.get("/api/v1/instances?namespace=" + NS + "&businessKeyPrefix=k8s-search-", READER_TOKEN);
    assertThat(mine.status()).as(mine.text()).isEqualTo(200);
    assertThat(mine.json().get("count").asInt()).isEqualTo(1);
    Response everywhere = h.get("/api/v1/instances?businessKeyPrefix=k8s-search-", READER_TOKEN);
    assertThat(everywhere.status()).isEqualTo(403);
    assertThat(everywhere.json().get("message").asText()).contains("may not list workflows/instances");
    assertThat(h.get("/api/v1/instances?businessKeyPrefix=k8s-search-", OPERATOR_TOKEN).status()).isEqualTo(200);
  }

  @Test
  void aBulkOperationNeedsItsActionsVerbWhereItsFilterPointsAndIsRecordedAsItsCreators() throws Exception {
    UUID held = startAsCi("holding", "k8s-bulk-1");
    String cancel = "{\"action\": \"cancel\", \"filter\": {\"namespace\": \"" + NS + "\","
        + " \"businessKeyPrefix\": \"k8s-bulk-\"}}";

    Response byReader = h.post("/api/v1/operations", cancel, READER_TOKEN, null);
    assertThat(byReader.status()).isEqualTo(403);
    assertThat(byReader.json().get("message").asText()).contains(READER + " may not delete workflows/instances");
    assertThat(h.post("/api/v1/operations", cancel.replace("\"namespace\": \"" + NS + "\",", ""), CI_TOKEN, null)
        .status()).as("no namespace: cluster-wide, which CI may not").isEqualTo(403);

    Response byCi = h.post("/api/v1/operations", cancel, CI_TOKEN, null);
    assertThat(byCi.status()).as(byCi.text()).isEqualTo(202);
    assertThat(byCi.json().get("createdBy").asText()).isEqualTo(CI);
    await().atMost(Duration.ofSeconds(20)).until(() -> "CANCELLED".equals(h.status(held)));
    assertThat(h.scalar("SELECT user_name FROM instance_audit WHERE instance_id = '" + held + "' AND action = 'cancel'"))
        .isEqualTo(CI);
    Response read = h.get("/api/v1/operations/" + byCi.json().get("id").asText(), READER_TOKEN);
    assertThat(read.status()).as(read.text()).isEqualTo(200);
  }

  @Test
  void whoamiSaysWhoATokenIsWithoutAskingRbac() {
    Response me = h.get("/api/v1/whoami", READER_TOKEN);

    assertThat(me.status()).as(me.text()).isEqualTo(200);
    assertThat(me.json().get("user").asText()).isEqualTo(READER);
    assertThat(me.json().get("groups").get(0).asText()).isEqualTo("system:authenticated");
    assertThat(me.json().get("auth").asText()).isEqualTo("kubernetes");
    assertThat(h.get("/api/v1/whoami").status()).isEqualTo(401);
  }

  @Test
  void theOperatorsReadsNeedListInEveryNamespace() {
    assertThat(h.get("/api/v1/counts", CI_TOKEN).status()).isEqualTo(403);
    assertThat(h.get("/api/v1/counts", OPERATOR_TOKEN).status()).isEqualTo(200);
    assertThat(h.get("/api/v1/routes", OPERATOR_TOKEN).status()).isIn(200, 503); // 503 until read once
  }

  @Test
  void probesAndMetricsNeedNoToken() {
    assertThat(h.get("/healthz").status()).isEqualTo(200);
    assertThat(h.get("/livez").status()).isEqualTo(200);
    assertThat(h.get("/metrics").status()).isEqualTo(200);
  }

  @Test
  void answersAreKeptForSecondsSoRequestsDoNotEachAskTheApiServer() {
    String token = "eyJhbGciOiJSUzI1NiJ9.cached.c2lnbmF0dXJl";
    CLUSTER.token(token, CI);
    int tokenReviews = CLUSTER.tokenReviews.get();
    int accessReviews = CLUSTER.accessReviews.get();

    for (int i = 0; i < 5; i++) {
      assertThat(h.get(BASE + "holding/instances", token).status()).isEqualTo(200);
    }

    assertThat(CLUSTER.tokenReviews.get() - tokenReviews).isEqualTo(1);
    assertThat(CLUSTER.accessReviews.get() - accessReviews).isLessThanOrEqualTo(1);
  }

  @Test
  void anApiServerThatCannotBeAskedIsA503AndNeverAPass() {
    String token = "eyJhbGciOiJSUzI1NiJ9.while-down.c2lnbmF0dXJl";
    CLUSTER.token(token, CI);
    CLUSTER.down = true;
    try {
      Response r = h.post(BASE + "holding/instances", body("k8s-down-1"), token, null);
      assertThat(r.status()).as(r.text()).isEqualTo(503);
      assertThat(r.json().get("error").asText()).isEqualTo("ServiceUnavailable");
      assertThat(r.text()).doesNotContain(token);
    } finally {
      CLUSTER.down = false;
    }
    assertThat(h.post(BASE + "holding/instances", body("k8s-down-1"), token, null).status()).isEqualTo(201);
  }
}
