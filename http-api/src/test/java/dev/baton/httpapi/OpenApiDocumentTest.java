package dev.baton.httpapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import dev.baton.api.json.Json;
import dev.baton.httpapi.ApiOperations.Operation;
import dev.baton.httpapi.ApiOperations.Parameter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document: committed as generated, valid OpenAPI 3.1 (what the specification asks of a document, draft
 * 2020-12 for the schemas inside, every reference found), true to the table, and describing what the mapper really writes and
 * what the requests' parse really takes.
 *
 * <p>After changing a type or {@link ApiOperations}: {@code mvn -B -q -pl http-api -am test -Dtest=OpenApiDocumentTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dbaton.openapi.update=true} rewrites the committed document.
 */
class OpenApiDocumentTest {

  private static final Path COMMITTED = Path.of("src/main/resources" + ApiOperations.DOCUMENT);
  private static final ObjectNode GENERATED = OpenApiGeneration.document();
  private static final OpenApiSchemas SCHEMAS = OpenApiSchemas.of(GENERATED);
  private static final Instant AT = Instant.parse("2026-12-04T19:30:00.123Z");

  @Test
  void theCommittedDocumentIsWhatTheTypesGenerate() throws IOException {
    String generated = OpenApiGeneration.text(GENERATED);
    if (Boolean.getBoolean("baton.openapi.update")) {
      Files.writeString(COMMITTED, generated, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(COMMITTED, StandardCharsets.UTF_8))
        .as("%s is out of date: regenerate it (see this test's comment) and commit it", COMMITTED)
        .isEqualTo(generated);
  }

  /**
   * What OpenAPI 3.1 asks of a document, on the parts this one uses (the OAI's schema of documents is not kept in the
   * project): the version, info, each path's operations with unique ids and their answers, parameters in a place
   * and with a schema, bodies and answers as JSON schemas, the security schemes an operation names declared.
   */
  @Test
  void theDocumentHasWhatOpenApi31AsksOfOne() {
    assertThat(GENERATED.get("openapi").asText()).isEqualTo("3.1.0");
    assertThat(GENERATED.at("/info/title").isTextual()).isTrue();
    assertThat(GENERATED.at("/info/version").isTextual()).isTrue();
    Set<String> schemes = new TreeSet<>();
    GENERATED.at("/components/securitySchemes").fieldNames().forEachRemaining(schemes::add);
    Set<String> ids = new TreeSet<>();
    List<String> wrong = new ArrayList<>();
    GENERATED.get("paths").fields().forEachRemaining(path -> {
      if (!path.getKey().startsWith("/")) {
        wrong.add(path.getKey() + ": a path starts with /");
      }
      path.getValue().fields().forEachRemaining(op -> {
        String where = op.getKey().toUpperCase(java.util.Locale.ROOT) + " " + path.getKey();
        if (!Set.of("get", "put", "post", "delete", "options", "head", "patch", "trace").contains(op.getKey())) {
          wrong.add(where + ": not an HTTP method");
          return;
        }
        JsonNode o = op.getValue();
        if (!ids.add(o.path("operationId").asText())) {
          wrong.add(where + ": operationId missing or not unique");
        }
        if (!o.path("responses").isObject() || o.path("responses").isEmpty()) {
          wrong.add(where + ": no responses");
        }
        o.path("responses").fields().forEachRemaining(r -> {
          if (!r.getKey().matches("default|[1-5](\\d\\d|XX)") || !r.getValue().path("description").isTextual()) {
            wrong.add(where + " " + r.getKey() + ": a status code (or default) with a description");
          }
        });
        o.path("parameters").forEach(p -> {
          if (!Set.of("path", "query", "header", "cookie").contains(p.path("in").asText())
              || !p.path("name").isTextual() || !p.path("schema").isObject()
              || ("path".equals(p.path("in").asText()) && !p.path("required").asBoolean())) {
            wrong.add(where + ": parameter " + p);
          }
        });
        o.path("security").forEach(requirement -> requirement.fieldNames().forEachRemaining(name -> {
          if (!schemes.contains(name)) {
            wrong.add(where + ": security scheme " + name + " not declared");
          }
        }));
      });
    });
    assertThat(wrong).isEmpty();
    assertThat(ids).isNotEmpty();
  }

  @Test
  void everySchemaIsValidJsonSchema202012() {
    JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    var metaSchema = factory.getSchema(SchemaLocation.of("https://json-schema.org/draft/2020-12/schema"));
    List<String> wrong = new ArrayList<>();
    GENERATED.at("/components/schemas").fields().forEachRemaining(e ->
        metaSchema.validate(e.getValue()).forEach(m -> wrong.add(e.getKey() + ": " + m)));
    assertThat(wrong).isEmpty();
  }

  @Test
  void everyReferenceResolves() {
    List<String> refs = new ArrayList<>();
    collectRefs(GENERATED, refs);
    assertThat(refs).isNotEmpty().allSatisfy(ref -> {
      assertThat(ref).startsWith("#/");
      assertThat(GENERATED.at(ref.substring(1)).isMissingNode()).as(ref).isFalse();
    });
  }

  @Test
  void everyOperationOfTheTableIsDescribedWithItsPathParameters() {
    for (Operation op : ApiOperations.ALL) {
      JsonNode described = GENERATED.at("/paths").path(op.path()).path(op.method().toLowerCase());
      assertThat(described.isMissingNode()).as(op.route()).isFalse();
      List<String> declared = new ArrayList<>();
      described.path("parameters").forEach(p -> {
        if (p.get("in").asText().equals("path")) {
          declared.add(p.get("name").asText());
        }
      });
      assertThat(declared).as(op.route()).isEqualTo(op.pathParameters());
      assertThat(described.at("/responses/default/content/application~1json/schema/$ref").asText())
          .isEqualTo("#/components/schemas/ErrorBody");
    }
    assertThat(GENERATED.at("/components/securitySchemes/bearer/scheme").asText()).isEqualTo("bearer");
  }

  @Test
  void theSearchTakesTheParametersItsQueryParses() {
    Operation search = ApiOperations.byRoute().get("GET " + ApiPaths.SEARCH);
    assertThat(new TreeSet<>(search.parameters().stream().map(Parameter::name).toList()))
        .isEqualTo(new TreeSet<>(InstanceQuery.PARAMETERS));
  }

  @Test
  void probesAndTheDocumentAreOpenTheRestNeedsAToken() {
    assertThat(GENERATED.at("/security/0/bearer").isArray()).isTrue();
    assertThat(GENERATED.at("/paths/~1healthz/get/security")).isEmpty();
    assertThat(GENERATED.at("/paths/~1api~1v1~1openapi.json/get/security")).isEmpty();
    assertThat(GENERATED.at("/paths/~1api~1v1~1instances~1{id}/get/security").isMissingNode()).isTrue();
    assertThat(GENERATED.at("/paths/~1api~1v1~1instances~1{id}/get/responses/401").isMissingNode()).isFalse();
  }

  @Test
  void documentsAsTheMapperWritesThemMatchTheirSchemas() {
    LastError error = new LastError("charge", "task", "pay", 2, "FAILED", "CARD_DECLINED", "insufficient funds", AT);
    InstanceDocument full = new InstanceDocument("3f2b8c1e-0000-4000-8000-000000000001", "shop", "order", 3,
        "order-1", null, "FAILED", "FORWARD", "charge", 2, AT, null, null, error, AT, AT, AT, "ann",
        Json.object().put("amount", 3), Json.object(), List.of(), List.of(new AuditEntry("start", "ann", AT,
        "127.0.0.1", null)), new InstanceLink("child", "3f2b8c1e-0000-4000-8000-000000000002", "parent", "RUNNING"),
        List.of(new InstanceLink("child", "3f2b8c1e-0000-4000-8000-000000000003", "order", "SUCCEEDED")));
    assertValid("InstanceDocument", full);
    assertValid("InstanceList", InstanceList.page(List.of(full.summary()), "abc"));
    assertValid("ErrorBody", new ErrorBody("NotFound", "no instance 1"));
    assertValid("Health", new Health("DOWN", "UP", "BLOCKED", "DOWN", List.of("orders: stopped"), List.of("q.o")));
    assertValid("WhoAmI", new WhoAmI("anonymous", List.of(), "open"));
    assertValid("BatchStartResponse", new BatchStartResponse(List.of(new BatchStartResponse.Result(
        "3f2b8c1e-0000-4000-8000-000000000001", "RUNNING", true))));
    assertValid("CountsResponse", new CountsResponse(List.of(new CountsResponse.WorkflowCounts("shop", "order", 1,
        2, 3, 4, 5, List.of(new CountsResponse.ScheduleReport("nightly", null, "2026-12-05T00:00:00Z", null,
        null))))));
    assertValid("RoutesResponse", new RoutesResponse(List.of(new RoutesResponse.WorkflowRoutes("shop", "order",
        List.of(2, 3), List.of(new RoutesResponse.Binding("baton.results", "order.charge"))))));
    assertValid("OperationDocument", new OperationDocument("3f2b8c1e-0000-4000-8000-000000000004", "retry",
        Map.of("workflow", "order"), OperationDocument.RUNNING, 10, 4, 0, null, "ann", AT, null));
    assertValid("Liveness", new Liveness(Health.UP));
    // Strict in the tests: a field the mapper would write but the schema does not describe is caught.
    assertThat(SCHEMAS.errors("ErrorBody", Json.read("{\"error\": \"NotFound\", \"message\": \"m\", \"x\": 1}")))
        .isNotEmpty();
    assertThat(SCHEMAS.errors("InstanceDocument", ((ObjectNode) Json.MAPPER.valueToTree(full)).put("id", 7)))
        .isNotEmpty();
  }

  @Test
  void theRequestSchemasTakeWhatParseTakesAndRefuseWhatItRefuses() {
    List<String> starts = List.of("{\"businessKey\": \"order-1\"}", "{\"businessKey\": \"k\", \"input\": {\"a\": 1}}");
    List<String> badStarts = List.of("{}", "{\"businessKey\": \"\"}", "{\"businessKey\": 42}",
        "{\"businessKey\": \"k\", \"input\": [1]}", "{\"business_key\": \"k\"}",
        "{\"businessKey\": \"" + "k".repeat(StartRequest.MAX_BUSINESS_KEY + 1) + "\"}");
    for (String body : starts) {
      StartRequest.parse(body.getBytes(StandardCharsets.UTF_8));
      assertThat(SCHEMAS.errors("StartRequest", Json.read(body))).as(body).isEmpty();
    }
    for (String body : badStarts) {
      assertThat(refused(() -> StartRequest.parse(body.getBytes(StandardCharsets.UTF_8)))).as(body).isTrue();
      assertThat(SCHEMAS.errors("StartRequest", Json.read(body))).as(body).isNotEmpty();
    }
    assertThat(SCHEMAS.errors("BatchStartRequest", Json.read("{\"instances\": []}"))).isNotEmpty();
    assertThat(SCHEMAS.errors("CancelRequest", Json.read("{\"compensate\": true}"))).isEmpty();
    assertThat(SCHEMAS.errors("CancelRequest", Json.read("{\"force\": true}"))).isNotEmpty();
    String operation = "{\"action\": \"retry\", \"filter\": {\"workflow\": \"order\", \"status\": \"FAILED\"}}";
    OperationRequest.parse(operation.getBytes(StandardCharsets.UTF_8));
    assertThat(SCHEMAS.errors("OperationRequest", Json.read(operation))).isEmpty();
    for (String bad : List.of("{\"action\": \"delete\", \"filter\": {\"workflow\": \"order\"}}",
        "{\"action\": \"retry\", \"filter\": {}}", "{\"action\": \"retry\", \"filter\": {\"limit\": \"5\"}}",
        "{\"action\": \"retry\", \"filter\": {\"workflow\": \"order\"}, \"query\": {}}")) {
      assertThat(refused(() -> OperationRequest.parse(bad.getBytes(StandardCharsets.UTF_8)))).as(bad).isTrue();
      assertThat(SCHEMAS.errors("OperationRequest", Json.read(bad))).as(bad).isNotEmpty();
    }
  }

  private static boolean refused(Runnable parse) {
    try {
      parse.run();
      return false;
    } catch (InvalidRequest e) {
      return true;
    }
  }

  private static void assertValid(String schema, Object document) {
    JsonNode written = Json.MAPPER.valueToTree(document);
    assertThat(SCHEMAS.errors(schema, written)).as(schema + ": " + written).isEmpty();
  }

  private static void collectRefs(JsonNode node, List<String> refs) {
    if (node.isObject()) {
      node.fields().forEachRemaining(e -> {
        if (e.getKey().equals("$ref")) {
          refs.add(e.getValue().asText());
        } else {
          collectRefs(e.getValue(), refs);
        }
      });
    } else if (node.isArray()) {
      node.forEach(n -> collectRefs(n, refs));
    }
  }
}
