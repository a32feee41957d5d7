package dev.baton.devapi.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pruning as an API server prunes a custom resource of a structural schema before it stores it: a field its schema
 * does not declare is dropped, and so is a {@code null} where the schema does not say {@code nullable: true}. Kept: any
 * field under {@code x-kubernetes-preserve-unknown-fields: true} (the declared ones still pruned inside), map entries
 * ({@code additionalProperties}), and {@code apiVersion}, {@code kind} and {@code metadata} of the resource and of an
 * embedded resource ({@code x-kubernetes-embedded-resource: true}).
 */
public final class StructuralPruning {

  private static final String PRESERVE = "x-kubernetes-preserve-unknown-fields";
  private static final String EMBEDDED = "x-kubernetes-embedded-resource";
  private static final Set<String> RESOURCE_FIELDS = Set.of("apiVersion", "kind", "metadata");

  /** The object as it would be stored, and the paths of the unknown fields dropped ({@code spec.steps[0].colour}). */
  public record Pruned(JsonNode object, List<String> unknownFields) {}

  private StructuralPruning() {}

  /** A pruned copy of {@code resource} under {@code schema}, the CRD version's {@code openAPIV3Schema}. */
  public static Pruned prune(JsonNode schema, JsonNode resource) {
    List<String> unknown = new ArrayList<>();
    JsonNode pruned = prune(schema, resource, "", true, unknown);
    return new Pruned(pruned, List.copyOf(unknown));
  }

  private static JsonNode prune(JsonNode schema, JsonNode value, String path, boolean resource, List<String> unknown) {
    if (value instanceof ObjectNode object) {
      boolean preserve = schema.path(PRESERVE).asBoolean(false);
      boolean keepsResourceFields = resource || schema.path(EMBEDDED).asBoolean(false);
      JsonNode properties = schema.path("properties");
      JsonNode additional = schema.path("additionalProperties");
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        String name = field.getKey();
        String at = path.isEmpty() ? name : path + "." + name;
        JsonNode declared = properties.has(name) ? properties.get(name) : additional.isObject() ? additional : null;
        if (keepsResourceFields && RESOURCE_FIELDS.contains(name)) {
          // the API server's own fields (a CRD may declare rules for metadata.name, never prune metadata)
          out.set(name, field.getValue().deepCopy());
        } else if (declared == null) {
          if (preserve || additional.asBoolean(false)) {
            out.set(name, field.getValue().deepCopy());
          } else {
            unknown.add(at);
          }
        } else if (!field.getValue().isNull() || declared.path("nullable").asBoolean(false)) {
          out.set(name, prune(declared, field.getValue(), at, false, unknown));
        }
      }
      return out;
    }
    if (value instanceof ArrayNode array && schema.has("items")) {
      ArrayNode out = JsonNodeFactory.instance.arrayNode();
      for (int i = 0; i < array.size(); i++) {
        out.add(prune(schema.get("items"), array.get(i), path + "[" + i + "]", false, unknown));
      }
      return out;
    }
    return value.deepCopy();
  }
}
