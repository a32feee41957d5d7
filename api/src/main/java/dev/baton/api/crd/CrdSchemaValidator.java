package dev.baton.api.crd;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
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

  /** Where the committed CRDs ({@code crds/}) are packaged inside the api jar. */
  public static final String CLASSPATH_DIR = "META-INF/baton/crds/";

  public static final List<String> CRD_FILES = List.of(
      "retrypolicies.baton.dev-v1.yml", "workerservices.baton.dev-v1.yml", "workflows.baton.dev-v1.yml");

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

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

  /** The validator over the CRDs packaged in this jar. */
  public static CrdSchemaValidator fromClasspath() {
    List<JsonNode> crds = new ArrayList<>();
    for (String file : CRD_FILES) {
      crds.add(readCrd(file));
    }
    return new CrdSchemaValidator(crds);
  }

  /** The validator over the given CRD documents. */
  public static CrdSchemaValidator of(List<JsonNode> crds) {
    return new CrdSchemaValidator(crds);
  }

  /** A packaged CRD file as a tree. */
  public static JsonNode readCrd(String file) {
    try (InputStream in = CrdSchemaValidator.class.getClassLoader().getResourceAsStream(CLASSPATH_DIR + file)) {
      if (in == null) {
        throw new IllegalStateException("CRD " + file + " is not on the classpath under " + CLASSPATH_DIR);
      }
      return YAML.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
