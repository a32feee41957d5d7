package dev.baton.httpapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.baton.api.json.Json;
import dev.baton.httpapi.ApiOperations.Operation;
import dev.baton.httpapi.ApiOperations.Parameter;
import java.io.IOException;
import java.io.InputStream;
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
 * The OpenAPI document: committed as generated, valid OpenAPI 3.1 (the OAI's schema of documents, draft 2020-12 for
 * the schemas inside, every reference found), true to the table, and describing what the mapper really writes and
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

  @Test
  void theDocumentIsValidOpenApi31() throws IOException {
    JsonNode oas;
    try (InputStream in = getClass().getResourceAsStream("/oas/schema-3.1.json")) {
      oas = Json.MAPPER.readTree(in);
    }
    Set<ValidationMessage> errors = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012)
        .getSchema(oas).validate(GENERATED);
    assertThat(errors).isEmpty();
    assertThat(GENERATED.get("openapi").asText()).isEqualTo("3.1.0");
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
