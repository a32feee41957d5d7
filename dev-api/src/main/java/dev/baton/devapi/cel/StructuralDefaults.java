package dev.baton.devapi.cel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * The schema's {@code default}s filled into an object, as the API server does before it validates (and whenever it
 * reads an object): a missing property with a default gets it, then defaults apply inside it too. The dev API stores
 * every custom resource defaulted, and CEL rules see the defaulted object, so that a rule on a defaulted field
 * ({@code queue.type}) sees the value a real server would.
 */
public final class StructuralDefaults {

  private StructuralDefaults() {}

  /** A defaulted copy of {@code value}. */
  public static JsonNode apply(JsonNode schema, JsonNode value) {
    JsonNode copy = value.deepCopy();
    fill(schema, copy);
    return copy;
  }

  private static void fill(JsonNode schema, JsonNode value) {
    if (value instanceof ObjectNode object) {
      JsonNode properties = schema.path("properties");
      for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> p = it.next();
        if (!object.has(p.getKey()) && p.getValue().has("default")) {
          object.set(p.getKey(), p.getValue().get("default").deepCopy());
        }
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        JsonNode child = properties.path(field.getKey());
        if (child.isMissingNode() && schema.path("additionalProperties").isObject()) {
          child = schema.get("additionalProperties");
        }
        if (!child.isMissingNode()) {
          fill(child, field.getValue());
        }
      }
    } else if (value != null && value.isArray() && schema.has("items")) {
      value.forEach(item -> fill(schema.get("items"), item));
    }
  }
}
