package dev.baton.devapi.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.baton.api.crd.CommittedCrds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Checks a Baton resource against the structural schema of its CRD, the way an API server does: types, patterns,
 * enums, bounds, required fields, (strict field validation) unknown fields, the CRD's rules for {@code metadata.name},
 * and unique keys in list-maps ({@code x-kubernetes-list-type: map}). CEL rules ({@code x-kubernetes-validations}) are
 * not evaluated here: the dev API evaluates them.
 *
 * <p>The fabric8 mock server validates nothing, so the dev API and the tests use this to reject what a real cluster
 * would reject.
 */
public final class CrdSchemaValidator {

  private final Map<String, JsonSchema> schemasByKind = new HashMap<>();
  /** The structural schemas as written, {@code x-kubernetes-*} extensions included. */
  private final Map<String, JsonNode> structuralByKind = new HashMap<>();

  private CrdSchemaValidator(List<JsonNode> crds) {
    JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4);
    for (JsonNode crd : crds) {
      String kind = crd.at("/spec/names/kind").asText();
      JsonNode schema = crd.at("/spec/versions/0/schema/openAPIV3Schema").deepCopy();
      structuralByKind.put(kind, schema.deepCopy());
      strict(schema, true);
      schemasByKind.put(kind, factory.getSchema(schema));
    }
  }

  /** The validator over the committed CRDs (packaged in the api jar). */
  public static CrdSchemaValidator fromClasspath() {
    return new CrdSchemaValidator(CommittedCrds.all());
  }

  /** The validator over the given CRD documents. */
  public static CrdSchemaValidator of(List<JsonNode> crds) {
    return new CrdSchemaValidator(crds);
  }

  public boolean knows(String kind) {
    return schemasByKind.containsKey(kind);
  }

  /**
   * The schema violations of a resource, each as {@code field: problem}, e.g.
   * {@code spec.steps[0].timeout: does not match the regex pattern ...}. Empty when valid or of an unknown kind.
   */
  public List<String> validate(JsonNode resource) {
    String kind = resource.path("kind").asText();
    JsonSchema schema = schemasByKind.get(kind);
    if (schema == null) {
      return List.of();
    }
    // metadata is checked by the API server itself; a CRD may only add rules for metadata.name.
    ObjectNode body = resource.deepCopy();
    body.remove(List.of("apiVersion", "kind", "metadata"));
    JsonNode structural = structuralByKind.get(kind);
    if (structural.path("properties").has("metadata") && resource.path("metadata").has("name")) {
      body.putObject("metadata").set("name", resource.path("metadata").path("name"));
    }
    List<String> errors = new ArrayList<>(ListMaps.duplicates(structural, body));
    for (ValidationMessage m : schema.validate(body)) {
      String path = m.getInstanceLocation().toString().replaceFirst("^\\$\\.?", "");
      String message = m.getMessage().replaceFirst("^\\$[^:]*: ", "");
      errors.add((path.isEmpty() ? "" : path + ": ") + message);
    }
    errors.sort(String::compareTo);
    return errors;
  }

  /** Strict field validation: objects with known properties refuse others; vendor keywords are dropped. */
  private static void strict(JsonNode node, boolean top) {
    if (!(node instanceof ObjectNode obj)) {
      if (node != null && node.isArray()) {
        node.forEach(n -> strict(n, false));
      }
      return;
    }
    boolean preserve = obj.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
      if (it.next().startsWith("x-")) {
        it.remove();
      }
    }
    if (!top && !preserve && obj.has("properties") && !obj.has("additionalProperties")) {
      obj.put("additionalProperties", false);
    }
    obj.properties().forEach(e -> {
      if (!e.getKey().equals("enum") && !e.getKey().equals("default")) {
        strict(e.getValue(), false);
      }
    });
  }
}
