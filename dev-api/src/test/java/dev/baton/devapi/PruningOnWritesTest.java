package dev.baton.devapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every write of a custom resource is stored as an API server stores it: pruned of the fields its CRD's schema does
 * not declare (each named in a {@code Warning} header, unless the client said {@code fieldValidation=Ignore}), with the
 * schema's defaults filled in. Strict field validation refuses the unknown field instead.
 */
class PruningOnWritesTest {

  static final String COLLECTION = "/apis/baton.dev/v1alpha1/namespaces/default/workerservices";
  static final HttpClient HTTP = HttpClient.newHttpClient();
  static DevApiServer api;

  @BeforeAll
  static void start() {
    api = DevApiServer.start("127.0.0.1", 0);
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "create           | POST  | application/json                      | ''   | {\"apiVersion\": \"baton.dev/v1alpha1\", \"kind\": \"WorkerService\", \"metadata\": {\"name\": \"NAME\"}, \"spec\": {\"commands\": [{\"name\": \"pay\", \"priority\": 1}], \"unknownField\": 1}}",
    "update (PUT)     | PUT   | application/json                      | NAME | {\"apiVersion\": \"baton.dev/v1alpha1\", \"kind\": \"WorkerService\", \"metadata\": {\"name\": \"NAME\"}, \"spec\": {\"commands\": [{\"name\": \"pay\", \"priority\": 1}], \"unknownField\": 1}}",
    "merge patch      | PATCH | application/merge-patch+json          | NAME | {\"spec\": {\"commands\": [{\"name\": \"pay\", \"priority\": 1}], \"unknownField\": 1}}",
    "strategic merge  | PATCH | application/strategic-merge-patch+json | NAME | {\"spec\": {\"commands\": [{\"name\": \"pay\", \"priority\": 1}], \"unknownField\": 1}}",
    "JSON patch       | PATCH | application/json-patch+json           | NAME | [{\"op\": \"add\", \"path\": \"/spec/unknownField\", \"value\": 1}, {\"op\": \"add\", \"path\": \"/spec/commands/0/priority\", \"value\": 1}]",
  })
  void theStoredObjectHasNoUnknownFieldAndHasTheDefaults(String what, String method, String contentType, String target,
      String body) throws Exception {
    String name = what.toLowerCase().replaceAll("[^a-z]+", "-").replaceAll("-$", "");
    if (!target.isEmpty()) {
      assertThat(send("POST", COLLECTION, "application/json", resource(name)).statusCode()).isEqualTo(201);
    }
    HttpResponse<String> written = send(method, target.isEmpty() ? COLLECTION : COLLECTION + "/" + name,
        contentType, body.replace("NAME", name));

    assertThat(written.statusCode()).as(written.body()).isBetween(200, 201);
    assertThat(written.headers().allValues("Warning")).containsExactlyInAnyOrder(
        "299 - \"unknown field \\\"spec.unknownField\\\"\"", "299 - \"unknown field \\\"spec.commands[0].priority\\\"\"");
    for (JsonNode stored : new JsonNode[] {Json.parse(written.body()), get(name)}) {
      assertThat(stored.path("spec").has("unknownField")).isFalse();
      assertThat(stored.at("/spec/commands/0").fieldNames()).toIterable().containsExactly("name");
      assertThat(stored.at("/spec/deletionPolicy").asText()).as("a default").isEqualTo("Retain");
      assertThat(stored.at("/spec/queue/prefetch").asInt()).as("a default inside a defaulted object").isEqualTo(10);
      assertThat(stored.at("/metadata/name").asText()).isEqualTo(name);
    }
  }

  @Test
  void theStatusIsPrunedAndADryRunShowsThePrunedObject() throws Exception {
    send("POST", COLLECTION, "application/json", resource("with-status"));
    HttpResponse<String> status = send("PATCH", COLLECTION + "/with-status/status", "application/merge-patch+json",
        "{\"status\": {\"observedGeneration\": 1, \"somethingNew\": true}}");
    assertThat(status.statusCode()).as(status.body()).isEqualTo(200);
    assertThat(get("with-status").path("status").fieldNames()).toIterable().containsExactly("observedGeneration");

    HttpResponse<String> dryRun = send("POST", COLLECTION + "?dryRun=All", "application/json",
        "{\"apiVersion\": \"baton.dev/v1alpha1\", \"kind\": \"WorkerService\", \"metadata\": {\"name\": \"dry\"},"
            + " \"spec\": {\"colour\": \"red\"}}");
    assertThat(dryRun.statusCode()).isEqualTo(201);
    assertThat(Json.parse(dryRun.body()).path("spec").has("colour")).isFalse();
    assertThat(dryRun.headers().allValues("Warning")).containsExactly("299 - \"unknown field \\\"spec.colour\\\"\"");
  }

  @Test
  void strictFieldValidationRefusesWhatIgnoreDropsSilently() throws Exception {
    String colour = "{\"apiVersion\": \"baton.dev/v1alpha1\", \"kind\": \"WorkerService\", \"metadata\": {\"name\": \"NAME\"},"
        + " \"spec\": {\"colour\": \"red\"}}";
    HttpResponse<String> strict = send("POST", COLLECTION + "?fieldValidation=Strict", "application/json",
        colour.replace("NAME", "strict"));
    assertThat(strict.statusCode()).isEqualTo(422);
    assertThat(strict.body()).contains("unknown field \\\"spec.colour\\\"");

    HttpResponse<String> ignored = send("POST", COLLECTION + "?fieldValidation=Ignore", "application/json",
        colour.replace("NAME", "ignored"));
    assertThat(ignored.statusCode()).isEqualTo(201);
    assertThat(ignored.headers().allValues("Warning")).isEmpty();
    assertThat(get("ignored").path("spec").has("colour")).isFalse();
  }

  private static String resource(String name) {
    return "{\"apiVersion\": \"baton.dev/v1alpha1\", \"kind\": \"WorkerService\", \"metadata\": {\"name\": \"" + name
        + "\"}, \"spec\": {\"commands\": [{\"name\": \"pay\"}]}}";
  }

  private static JsonNode get(String name) throws Exception {
    return Json.parse(send("GET", COLLECTION + "/" + name, null, null).body());
  }

  private static HttpResponse<String> send(String method, String path, String contentType, String body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(api.url() + path));
    if (contentType != null) {
      b.header("Content-Type", contentType);
    }
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}
