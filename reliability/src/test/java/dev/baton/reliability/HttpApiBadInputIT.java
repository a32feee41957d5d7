package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.suite.Rig;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input on every endpoint of the runtime's HTTP API, table-driven: each case must get its 4xx with a JSON body
 * {@code {"error", "message"}} whose message says what is wrong; never a 500, never a success. (One exception:
 * Jetty refuses a path with an encoded NUL before the API sees it, with its own 400.)
 */
class HttpApiBadInputIT {

  static final String START = "/api/v1/namespaces/default/workflows/order/instances";
  static Rig rig;
  static String finished;

  /** One request and what it must get. */
  record Case(String name, String method, String path, byte[] body, int status, String code, String says) {

    static Case post(String name, String path, String body, int status, String code, String says) {
      return new Case(name, "POST", path, body == null ? null : body.getBytes(StandardCharsets.UTF_8), status, code,
          says);
    }

    static Case get(String name, String path, int status, String code, String says) {
      return new Case(name, "GET", path, null, status, code, says);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  @BeforeAll
  static void start() {
    rig = Rig.create(Infra.get(), "badinput");
    rig.runtime().startInProcess(rig.runtime().settings());
    HttpResponse<String> r = rig.api().post(START, "{\"businessKey\":\"done-1\"}");
    assertThat(r.statusCode()).isEqualTo(201);
    String id = Json.parseOrNull(r.body()).get("id").asText();
    assertThat(rig.api().post("/api/v1/instances/" + id + "/cancel", "").statusCode()).isEqualTo(200);
    finished = id; // CANCELLED: neither cancel nor retry may change it again
  }

  @AfterAll
  static void stop() {
    rig.close();
  }

  static String key(int length) {
    return "k".repeat(length);
  }

  static Stream<Case> cases() {
    String unknown = UUID.randomUUID().toString();
    List<Case> c = new ArrayList<>();
    // --- start: the body
    c.add(Case.post("empty body", START, "", 400, "BadRequest", "the body is empty"));
    c.add(Case.post("no body", START, null, 400, "BadRequest", "the body is empty"));
    c.add(Case.post("truncated JSON", START, "{\"businessKey\": \"a\"", 400, "BadRequest", "not valid JSON"));
    c.add(Case.post("single brace", START, "{", 400, "BadRequest", "not valid JSON"));
    c.add(Case.post("not JSON", START, "businessKey=a", 400, "BadRequest", "not valid JSON"));
    c.add(Case.post("XML", START, "<start businessKey='a'/>", 400, "BadRequest", "not valid JSON"));
    c.add(Case.post("single quotes", START, "{'businessKey':'a'}", 400, "BadRequest", "not valid JSON"));
    c.add(Case.post("trailing comma", START, "{\"businessKey\":\"a\",}", 400, "BadRequest", "not valid JSON"));
    c.add(Case.post("trailing garbage", START, "{\"businessKey\":\"tg\"} garbage", 400, "BadRequest",
        "not valid JSON"));
    c.add(Case.post("two documents", START, "{\"businessKey\":\"td\"}{\"businessKey\":\"td2\"}", 400, "BadRequest",
        "not valid JSON"));
    c.add(Case.post("array", START, "[{\"businessKey\":\"a\"}]", 400, "BadRequest", "must be a JSON object"));
    c.add(Case.post("string", START, "\"a\"", 400, "BadRequest", "must be a JSON object"));
    c.add(Case.post("number", START, "42", 400, "BadRequest", "must be a JSON object"));
    c.add(Case.post("null", START, "null", 400, "BadRequest", "must be a JSON object"));
    c.add(Case.post("boolean", START, "true", 400, "BadRequest", "must be a JSON object"));
    c.add(Case.post("empty object", START, "{}", 400, "BadRequest", "businessKey is missing"));
    c.add(Case.post("businessKey null", START, "{\"businessKey\":null}", 400, "BadRequest", "businessKey is missing"));
    c.add(Case.post("businessKey empty", START, "{\"businessKey\":\"\"}", 400, "BadRequest", "non-empty string"));
    c.add(Case.post("businessKey blank", START, "{\"businessKey\":\"   \"}", 400, "BadRequest", "non-empty string"));
    c.add(Case.post("businessKey number", START, "{\"businessKey\":7}", 400, "BadRequest", "non-empty string"));
    c.add(Case.post("businessKey boolean", START, "{\"businessKey\":false}", 400, "BadRequest", "non-empty string"));
    c.add(Case.post("businessKey object", START, "{\"businessKey\":{\"id\":1}}", 400, "BadRequest",
        "non-empty string"));
    c.add(Case.post("businessKey array", START, "{\"businessKey\":[\"a\"]}", 400, "BadRequest", "non-empty string"));
    c.add(Case.post("businessKey too long", START, "{\"businessKey\":\"" + key(257) + "\"}", 400, "BadRequest",
        "longer than 256"));
    c.add(Case.post("input array", START, "{\"businessKey\":\"a\",\"input\":[1]}", 400, "BadRequest",
        "input must be a JSON object, got array"));
    c.add(Case.post("input string", START, "{\"businessKey\":\"a\",\"input\":\"x\"}", 400, "BadRequest",
        "input must be a JSON object, got string"));
    c.add(Case.post("input number", START, "{\"businessKey\":\"a\",\"input\":1}", 400, "BadRequest",
        "input must be a JSON object, got number"));
    c.add(Case.post("input boolean", START, "{\"businessKey\":\"a\",\"input\":true}", 400, "BadRequest",
        "input must be a JSON object, got boolean"));
    c.add(Case.post("snake_case field", START, "{\"business_key\":\"a\"}", 400, "BadRequest",
        "unknown field 'business_key'"));
    c.add(Case.post("unknown field", START, "{\"businessKey\":\"a\",\"priority\":1}", 400, "BadRequest",
        "unknown field 'priority'"));
    c.add(Case.post("wrong case field", START, "{\"businessKey\":\"a\",\"Input\":{}}", 400, "BadRequest",
        "unknown field 'Input'"));
    c.add(Case.post("duplicate field", START, "{\"businessKey\":\"a\",\"businessKey\":\"b\"}", 400, "BadRequest",
        "not valid JSON"));
    c.add(Case.post("deeply nested input", START, "{\"businessKey\":\"deep\",\"input\":{\"a\":"
        + "[".repeat(5_000) + "]".repeat(5_000) + "}}", 400, "BadRequest", "not valid JSON"));
    c.add(new Case("invalid UTF-8", "POST", START, new byte[] {'{', '"', 'b', (byte) 0xC3, (byte) 0x28, '"', ':', '1',
        '}'}, 400, "BadRequest", "not valid JSON"));
    c.add(Case.post("huge body (2 MB)", START, "{\"businessKey\":\"big\",\"input\":{\"x\":\"" + "x".repeat(2_000_000)
        + "\"}}", 413, "PayloadTooLarge", "limit"));
    // --- start: the target
    c.add(Case.post("unknown workflow", "/api/v1/namespaces/default/workflows/nope/instances",
        "{\"businessKey\":\"a\"}", 404, "NotFound", "no Workflow 'nope' in namespace 'default'"));
    c.add(Case.post("unknown namespace", "/api/v1/namespaces/elsewhere/workflows/order/instances",
        "{\"businessKey\":\"a\"}", 404, "NotFound", "no Workflow 'order' in namespace 'elsewhere'"));
    c.add(Case.post("odd workflow name", "/api/v1/namespaces/default/workflows/%E2%98%83%20x/instances",
        "{\"businessKey\":\"a\"}", 404, "NotFound", "no Workflow"));
    // --- get one instance: bad ids
    c.add(Case.get("id not a UUID", "/api/v1/instances/not-a-uuid", 400, "BadRequest", "is not an instance id"));
    c.add(Case.get("id a number", "/api/v1/instances/12345", 400, "BadRequest", "is not an instance id"));
    c.add(Case.get("id UUID without dashes", "/api/v1/instances/" + unknown.replace("-", ""), 400, "BadRequest",
        "is not an instance id"));
    c.add(Case.get("id UUID with a suffix", "/api/v1/instances/" + unknown + "0", 400, "BadRequest",
        "is not an instance id"));
    c.add(Case.get("id short UUID form", "/api/v1/instances/1-1-1-1-1", 400, "BadRequest", "is not an instance id"));
    // Jetty refuses an encoded NUL in a path before the API sees it: a 400 of its own (HTML, not JSON)
    c.add(Case.get("id NUL byte", "/api/v1/instances/%00", 400, null, null));
    c.add(Case.get("id 1000 characters", "/api/v1/instances/" + key(1_000), 400, "BadRequest",
        "is not an instance id"));
    c.add(Case.get("id SQL", "/api/v1/instances/1'%20OR%20'1'='1", 400, "BadRequest", "is not an instance id"));
    c.add(Case.get("unknown id", "/api/v1/instances/" + unknown, 404, "NotFound", "no instance " + unknown));
    // --- cancel and retry
    c.add(Case.post("cancel bad id", "/api/v1/instances/nope/cancel", "", 400, "BadRequest", "is not an instance id"));
    c.add(Case.post("retry bad id", "/api/v1/instances/nope/retry", "", 400, "BadRequest", "is not an instance id"));
    c.add(Case.post("cancel unknown", "/api/v1/instances/" + unknown + "/cancel", "", 404, "NotFound", "no instance"));
    c.add(Case.post("retry unknown", "/api/v1/instances/" + unknown + "/retry", "", 404, "NotFound", "no instance"));
    c.add(Case.post("retry a cancelled instance", "/api/v1/instances/{finished}/retry", "", 409, "Conflict", ""));
    // --- list: query parameters
    c.add(Case.get("limit 0", START + "?limit=0", 400, "BadRequest", "limit must be a whole number from 1 to 500"));
    c.add(Case.get("limit negative", START + "?limit=-1", 400, "BadRequest", "limit must be"));
    c.add(Case.get("limit too big", START + "?limit=501", 400, "BadRequest", "limit must be"));
    c.add(Case.get("limit not a number", START + "?limit=ten", 400, "BadRequest", "limit must be"));
    c.add(Case.get("limit decimal", START + "?limit=1.5", 400, "BadRequest", "limit must be"));
    c.add(Case.get("limit overflow", START + "?limit=99999999999999999999", 400, "BadRequest", "limit must be"));
    c.add(Case.get("status unknown", START + "?status=LOST", 400, "BadRequest", "status 'LOST' is not one of"));
    c.add(Case.get("status NUL", START + "?status=%00", 400, "BadRequest", "is not one of"));
    c.add(Case.get("list unknown workflow", "/api/v1/namespaces/default/workflows/nope/instances", 404, "NotFound",
        "no Workflow 'nope'"));
    // --- paths and methods
    c.add(Case.get("unknown endpoint", "/api/v1/nothing", 404, "NotFound", "no such endpoint: GET /api/v1/nothing"));
    // Without an id, /api/v1/instances is the search: its bad parameters are 400s naming them.
    c.add(Case.get("search with a bad limit", "/api/v1/instances/?limit=0", 400, "BadRequest",
        "limit '0' must be a number from 1 to 500"));
    c.add(Case.get("search with a typo", "/api/v1/instances?stauts=FAILED", 400, "BadRequest",
        "unknown parameter 'stauts'"));
    c.add(Case.get("api v2", "/api/v2/instances/" + unknown, 404, "NotFound", "no such endpoint"));
    c.add(new Case("DELETE an instance", "DELETE", "/api/v1/instances/" + unknown, null, 405, "MethodNotAllowed",
        "DELETE is not allowed"));
    c.add(new Case("PUT an instance", "PUT", "/api/v1/instances/" + unknown, new byte[0], 405, "MethodNotAllowed",
        "PUT is not allowed"));
    c.add(new Case("PATCH the list", "PATCH", START, new byte[0], 405, "MethodNotAllowed", "PATCH is not allowed"));
    c.add(Case.get("GET cancel", "/api/v1/instances/" + unknown + "/cancel", 405, "MethodNotAllowed",
        "GET is not allowed"));
    return c.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badInputGetsA4xxThatSaysWhatIsWrong(Case c) {
    String path = c.path().replace("{finished}", finished == null ? "" : finished);
    HttpRequest.BodyPublisher body = c.body() == null ? HttpRequest.BodyPublishers.noBody()
        : HttpRequest.BodyPublishers.ofByteArray(c.body());
    HttpResponse<String> r = rig.api().raw(HttpRequest.newBuilder(rig.api().url(path))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + rig.apiToken)
        .timeout(Duration.ofSeconds(20)).method(c.method(), body));
    assertThat(r.statusCode()).as(c.name() + ": " + r.body()).isEqualTo(c.status());
    if (c.code() == null) {
      return;
    }
    assertThat(r.headers().firstValue("Content-Type")).get().asString().startsWith("application/json");
    JsonNode json = Json.parseOrNull(r.body());
    assertThat(json).as("JSON error body").isNotNull();
    assertThat(json.path("error").asText()).isEqualTo(c.code());
    assertThat(json.path("message").asText()).contains(c.says()).isNotBlank();
  }
}
