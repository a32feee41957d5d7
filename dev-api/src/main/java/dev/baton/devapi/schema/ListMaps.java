package dev.baton.devapi.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Uniqueness in lists of type {@code map} (by their {@code x-kubernetes-list-map-keys}) and {@code set}, as the API
 * server checks it: a second item with the same keys is a {@code Duplicate value} at that item's index.
 */
final class ListMaps {

  private ListMaps() {}

  /** {@code spec.steps[1]: Duplicate value: map[string]interface {}{"name":"charge"}} for each duplicate. */
  static List<String> duplicates(JsonNode schema, JsonNode value) {
    List<String> out = new ArrayList<>();
    walk(schema, value, "", out);
    return out;
  }

  private static void walk(JsonNode schema, JsonNode value, String path, List<String> out) {
    if (schema == null || schema.isMissingNode() || value == null) {
      return;
    }
    if (value.isArray()) {
      String listType = schema.path("x-kubernetes-list-type").asText("atomic");
      Set<String> seen = new HashSet<>();
      for (int i = 0; i < value.size(); i++) {
        JsonNode item = value.get(i);
        String key = switch (listType) {
          case "map" -> mapKey(schema.path("x-kubernetes-list-map-keys"), item);
          case "set" -> item.toString();
          default -> null;
        };
        if (key != null && !seen.add(key)) {
          out.add(path + "[" + i + "]: Duplicate value: " + key);
        }
        walk(schema.path("items"), item, path + "[" + i + "]", out);
      }
    } else if (value.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> field = it.next();
        JsonNode child = schema.path("properties").path(field.getKey());
        if (child.isMissingNode() && schema.path("additionalProperties").isObject()) {
          child = schema.path("additionalProperties");
        }
        walk(child, field.getValue(), path.isEmpty() ? field.getKey() : path + "." + field.getKey(), out);
      }
    }
  }

  /** The keys of an item the way the API server prints them: {@code map[string]interface {}{"name":"charge"}}. */
  private static String mapKey(JsonNode keys, JsonNode item) {
    Map<String, JsonNode> values = new LinkedHashMap<>();
    if (keys instanceof ArrayNode names) {
      names.forEach(k -> values.put(k.asText(), item.path(k.asText())));
    }
    StringBuilder key = new StringBuilder("map[string]interface {}{");
    int n = 0;
    for (Map.Entry<String, JsonNode> e : values.entrySet()) {
      if (e.getValue().isMissingNode()) {
        continue;
      }
      key.append(n++ == 0 ? "" : ", ").append('"').append(e.getKey()).append("\":").append(e.getValue());
    }
    return key.append('}').toString();
  }
}
