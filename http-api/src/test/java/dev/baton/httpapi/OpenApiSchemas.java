package dev.baton.httpapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.baton.api.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.List;

/**
 * The schemas of the OpenAPI document ({@link ApiOperations#DOCUMENT}), to validate JSON with (networknt's validator,
 * draft 2020-12, formats asserted). Strictly: every object whose schema lists its properties takes no other, so a
 * field the mapper writes but the schema does not describe fails here (the document itself leaves them open, as
 * clients ignore fields they do not know). Shared with the runtime's tests (this module's test jar).
 */
public final class OpenApiSchemas {

  private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
  private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder()
      .formatAssertionsEnabled(true).build();

  private final JsonNode document;
  private final ObjectNode components;

  private OpenApiSchemas(JsonNode document) {
    this.document = document;
    this.components = (ObjectNode) document.get("components").deepCopy();
    closeObjects(components.get("schemas"));
  }

  /** The committed document, from the classpath. */
  public static OpenApiSchemas committed() {
    return of(committedDocument());
  }

  public static OpenApiSchemas of(JsonNode document) {
    return new OpenApiSchemas(document);
  }

  /** The committed document as it is served. */
  public static JsonNode committedDocument() {
    try (InputStream in = OpenApiSchemas.class.getResourceAsStream(ApiOperations.DOCUMENT)) {
      if (in == null) {
        throw new IllegalStateException(ApiOperations.DOCUMENT + " is not on the classpath");
      }
      return Json.MAPPER.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public JsonNode document() {
    return document;
  }

  /** What is wrong with {@code value} as an instance of the schema at {@code ref}; empty when it is valid. */
  public List<String> errors(JsonNode ref, JsonNode value) {
    // The schema is the reference itself, beside the document's components, so '#/components/schemas/...' resolves.
    ObjectNode wrapper = ((ObjectNode) ref.deepCopy());
    wrapper.put("$schema", "https://json-schema.org/draft/2020-12/schema");
    wrapper.set("components", components);
    JsonSchema schema = FACTORY.getSchema(wrapper, CONFIG);
    return schema.validate(value).stream().sorted(Comparator.comparing(ValidationMessage::toString))
        .map(ValidationMessage::toString).toList();
  }

  /** What is wrong with {@code value} as a {@code components/schemas} entry named {@code name}. */
  public List<String> errors(String name, JsonNode value) {
    return errors(Json.object().put("$ref", "#/components/schemas/" + name), value);
  }

  /**
   * What is wrong with an answer of {@code method path} (a route template) with {@code status}, by the schema the
   * document gives that answer; a status the document does not list for that operation is an error too.
   */
  public List<String> responseErrors(String method, String path, int status, JsonNode body) {
    JsonNode responses = document.path("paths").path(path).path(method.toLowerCase(java.util.Locale.ROOT))
        .path("responses");
    JsonNode response = responses.has(Integer.toString(status)) ? responses.get(Integer.toString(status))
        : responses.get("default");
    if (response == null) {
      return List.of("the document lists no answer " + status + " for " + method + " " + path);
    }
    JsonNode schema = response.path("content").path("application/json").get("schema");
    if (schema == null) {
      return List.of("the document gives no JSON schema to answer " + status + " of " + method + " " + path);
    }
    return errors(schema, body);
  }

  /** Objects that list their properties take no other (for the tests; see the class comment). */
  private static void closeObjects(JsonNode node) {
    if (node instanceof ObjectNode o) {
      if (o.has("properties") && !o.has("additionalProperties")) {
        o.put("additionalProperties", false);
      }
      o.elements().forEachRemaining(OpenApiSchemas::closeObjects);
    } else if (node != null && node.isArray()) {
      node.elements().forEachRemaining(OpenApiSchemas::closeObjects);
    }
  }
}
