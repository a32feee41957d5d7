package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.NS;
import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.httpapi.ApiOperations;
import dev.baton.httpapi.ApiPaths;
import dev.baton.httpapi.OpenApiSchemas;
import dev.baton.runtime.it.RuntimeHarness.Response;
import dev.baton.runtime.it.TestWorker.Reply;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The runtime and its OpenAPI document agree: it serves exactly the operations of {@link ApiOperations}, serves the
 * document without a token, and its real answers, errors included, are valid by the schemas the document gives them
 * (strictly: no field the schema does not describe). A runtime with a token, as in a cluster.
 */
class OpenApiIT {

  static final String TOKEN = "openapi-it-token";
  static final String BASE = "/api/v1/namespaces/" + NS + "/workflows/";
  static final OpenApiSchemas SCHEMAS = OpenApiSchemas.committed();
  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("openapi");
    h.startRuntime(h.settings().toBuilder().apiToken(TOKEN).build());
    h.apply("held", spec("order", step("only", "openapi-held", "only", null)));
    h.worker().serve("q.openapi-held.only", "openapi-held", "only", c -> Reply.HOLD);
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void theRuntimeServesExactlyTheOperationsOfTheTable() {
    Set<String> api = new TreeSet<>();
    for (String route : h.runtime.httpRoutes()) {
      String path = route.substring(route.indexOf(' ') + 1);
      if (!path.equals("/ui") && !path.startsWith("/ui/")) { // the web UI's pages: HTML, not the API
        api.add(route);
      }
    }
    assertThat(api).isEqualTo(ApiOperations.routes());
  }

  @Test
  void theDocumentIsServedAsCommittedWithoutAToken() {
    Response served = h.get(ApiPaths.OPENAPI);
    assertThat(served.status()).isEqualTo(200);
    assertThat(served.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t)
        .startsWith("application/json"));
    assertThat(served.json()).isEqualTo(SCHEMAS.document());
  }

  @Test
  void answersOfInstancesMatchTheirSchemas() {
    Response started = h.post(BASE + "held/instances", "{\"businessKey\": \"oa-1\", \"input\": {\"n\": 1}}", TOKEN,
        null);
    valid("POST", ApiPaths.INSTANCES, started, 201);
    valid("POST", ApiPaths.INSTANCES, h.post(BASE + "held/instances", "{\"businessKey\": \"oa-1\"}", TOKEN, null),
        200);
    String id = started.json().get("id").asText();
    valid("GET", ApiPaths.INSTANCE, h.get("/api/v1/instances/" + id, TOKEN), 200);
    valid("GET", ApiPaths.INSTANCE, h.get("/api/v1/instances/" + id + "?wait=10ms", TOKEN), 200);
    valid("GET", ApiPaths.INSTANCES, h.get(BASE + "held/instances?limit=5", TOKEN), 200);
    valid("GET", ApiPaths.SEARCH, h.get(ApiPaths.SEARCH + "?workflow=held&limit=1", TOKEN), 200);
    valid("POST", ApiPaths.BATCH, h.post(BASE + "held/instances/batch",
        "{\"instances\": [{\"businessKey\": \"oa-2\"}, {\"businessKey\": \"oa-1\"}]}", TOKEN, null), 200);
    valid("POST", ApiPaths.CANCEL, h.post("/api/v1/instances/" + id + "/cancel", "", TOKEN, null), 200);
    valid("POST", ApiPaths.RETRY, h.post("/api/v1/instances/" + id + "/retry", "", TOKEN, null), 409);
    valid("POST", ApiPaths.SIGNAL, h.post("/api/v1/instances/" + id + "/signals/go", "{}", TOKEN, null), 409);
  }

  @Test
  void errorsMatchTheErrorBody() {
    valid("GET", ApiPaths.INSTANCE, h.get("/api/v1/instances/" + UUID.randomUUID(), TOKEN), 404);
    valid("GET", ApiPaths.INSTANCE, h.get("/api/v1/instances/not-a-uuid", TOKEN), 400);
    valid("GET", ApiPaths.INSTANCE, h.get("/api/v1/instances/" + UUID.randomUUID()), 401);
    valid("POST", ApiPaths.INSTANCES, h.post(BASE + "held/instances", "{\"business_key\": \"k\"}", TOKEN, null), 400);
    valid("GET", ApiPaths.SEARCH, h.get(ApiPaths.SEARCH + "?colour=red", TOKEN), 400);
    valid("POST", ApiPaths.INSTANCES, h.post(BASE + "nowhere/instances", "{\"businessKey\": \"k\"}", TOKEN, null),
        404);
  }

  @Test
  void answersOfOperationsAndTheOperatorsReadsMatchTheirSchemas() {
    Response dryRun = h.post(ApiPaths.OPERATIONS, "{\"action\": \"retry\", \"filter\": {\"workflow\": \"held\"},"
        + " \"dryRun\": true}", TOKEN, null);
    valid("POST", ApiPaths.OPERATIONS, dryRun, 200);
    Response created = h.post(ApiPaths.OPERATIONS, "{\"action\": \"cancel\", \"filter\": {\"workflow\": \"held\","
        + " \"businessKeyPrefix\": \"none-\"}}", TOKEN, null);
    valid("POST", ApiPaths.OPERATIONS, created, 202);
    valid("GET", ApiPaths.OPERATION, h.get(ApiPaths.operation(created.json().get("id").asText()), TOKEN), 200);
    valid("GET", ApiPaths.COUNTS, h.get(ApiPaths.COUNTS, TOKEN), 200);
    valid("GET", ApiPaths.ROUTES, h.get(ApiPaths.ROUTES, TOKEN), 200);
    valid("GET", ApiPaths.WHOAMI, h.get(ApiPaths.WHOAMI, TOKEN), 200);
    valid("GET", ApiPaths.HEALTH, h.get(ApiPaths.HEALTH), 200);
    valid("GET", ApiPaths.LIVE, h.get(ApiPaths.LIVE), 200);
  }

  /** The answer has the status expected, and the document lists that status with a schema the body fits. */
  static void valid(String method, String template, Response r, int status) {
    assertThat(r.status()).as(method + " " + template + ": " + r.text()).isEqualTo(status);
    assertThat(SCHEMAS.responseErrors(method, template, r.status(), r.json())).as(r.text()).isEmpty();
  }
}
