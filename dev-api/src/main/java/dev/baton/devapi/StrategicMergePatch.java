package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a strategic merge patch (what {@code kubectl apply} and {@code kubectl edit} send for built-in kinds such as
 * Deployments and Secrets) into a JSON merge patch the fabric8 CRUD store understands.
 *
 * <p>The store knows no Go struct tags, so merge keys come from the patch itself: kubectl sends
 * {@code $setElementOrder/<list>} with the merge key of every element for each list it merges
 * ({@code [{"name": "app"}]}). Such lists are merged element by element against the stored object and written out
 * whole; other lists replace, as in a merge patch. {@code $patch: delete|replace}, {@code $retainKeys} and
 * {@code $deleteFromPrimitiveList/<list>} are honoured.
 */
final class StrategicMergePatch {

  private static final String ORDER = "$setElementOrder/";
  private static final String DELETE_PRIMITIVE = "$deleteFromPrimitiveList/";

  private StrategicMergePatch() {}

  static boolean is(String contentType) {
    return contentType != null && contentType.startsWith("application/strategic-merge-patch+json");
  }

  /** The JSON merge patch that has the same effect on {@code current} as {@code patch}. */
  static JsonNode toMergePatch(JsonNode current, JsonNode patch) {
    if (!patch.isObject()) {
      return patch;
    }
    ObjectNode in = (ObjectNode) patch;
    JsonNode currentObject = current != null && current.isObject() ? current : Json.object();
    String directive = in.path("$patch").asText("");
    if (directive.equals("replace")) {
      ObjectNode replacement = in.deepCopy();
      replacement.remove("$patch");
      ObjectNode out = Json.object();
      currentObject.fieldNames().forEachRemaining(k -> out.putNull(k));
      out.setAll((ObjectNode) strip(replacement));
      return out;
    }
    ObjectNode out = Json.object();
    JsonNode retain = in.get("$retainKeys");
    if (retain != null && retain.isArray()) {
      List<String> keep = new ArrayList<>();
      retain.forEach(k -> keep.add(k.asText()));
      currentObject.fieldNames().forEachRemaining(k -> {
        if (!keep.contains(k)) {
          out.putNull(k);
        }
      });
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = in.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      JsonNode value = e.getValue();
      if (key.startsWith(DELETE_PRIMITIVE)) {
        String list = key.substring(DELETE_PRIMITIVE.length());
        if (!in.has(list)) {
          out.set(list, withoutValues(currentObject.path(list), value));
        }
        continue;
      }
      if (key.startsWith("$")) {
        continue;
      }
      JsonNode existing = currentObject.get(key);
      if (value.isObject() && "delete".equals(value.path("$patch").asText())) {
        out.putNull(key);
      } else if (value.isObject()) {
        out.set(key, toMergePatch(existing, value));
      } else if (value.isArray() && (in.has(ORDER + key) || hasDirectives(value))) {
        ArrayNode merged = mergeList(existing, (ArrayNode) value, in.get(ORDER + key));
        JsonNode toDelete = in.get(DELETE_PRIMITIVE + key);
        out.set(key, toDelete == null ? merged : withoutValues(merged, toDelete));
      } else if (value.isArray() && in.has(DELETE_PRIMITIVE + key)) {
        out.set(key, withoutValues(value, in.get(DELETE_PRIMITIVE + key)));
      } else {
        out.set(key, value.isArray() ? strip(value) : value);
      }
    }
    // Lists named only in $setElementOrder were reordered, not changed.
    for (Iterator<String> it = in.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (key.startsWith(ORDER) && !in.has(key.substring(ORDER.length()))) {
        String list = key.substring(ORDER.length());
        if (currentObject.path(list).isArray()) {
          out.set(list, mergeList(currentObject.get(list), Json.MAPPER.createArrayNode(), in.get(key)));
        }
      }
    }
    return out;
  }

  private static boolean hasDirectives(JsonNode list) {
    for (JsonNode element : list) {
      if (element.isObject() && element.has("$patch")) {
        return true;
      }
    }
    return false;
  }

  /** Merges a list by its merge key (primitives by value) and orders it as {@code $setElementOrder} says. */
  private static ArrayNode mergeList(JsonNode current, ArrayNode patch, JsonNode order) {
    List<String> keyFields = mergeKey(patch, order);
    Map<String, JsonNode> merged = new LinkedHashMap<>();
    if (current != null && current.isArray()) {
      for (JsonNode element : current) {
        merged.put(identity(element, keyFields), element);
      }
    }
    for (JsonNode element : patch) {
      String id = identity(element, keyFields);
      if (element.isObject() && "delete".equals(element.path("$patch").asText())) {
        merged.remove(id);
      } else if (element.isObject()) {
        JsonNode base = merged.get(id);
        merged.put(id, MergePatch.apply(base, toMergePatch(base, element)));
      } else {
        merged.put(id, element);
      }
    }
    ArrayNode out = Json.MAPPER.createArrayNode();
    if (order != null && order.isArray()) {
      for (JsonNode o : order) {
        JsonNode element = merged.remove(identity(o, keyFields));
        if (element != null) {
          out.add(element);
        }
      }
    }
    merged.values().forEach(out::add);
    return out;
  }

  private static List<String> mergeKey(ArrayNode patch, JsonNode order) {
    List<String> fields = new ArrayList<>();
    JsonNode sample = order != null && order.size() > 0 ? order.get(0) : null;
    if (sample != null && sample.isObject()) {
      sample.fieldNames().forEachRemaining(f -> {
        if (!f.startsWith("$")) {
          fields.add(f);
        }
      });
    }
    if (fields.isEmpty()) {
      fields.add("name");
    }
    return fields;
  }

  private static String identity(JsonNode element, List<String> keyFields) {
    if (!element.isObject()) {
      return Json.write(element);
    }
    StringBuilder id = new StringBuilder();
    for (String f : keyFields) {
      id.append(Json.write(element.path(f).isMissingNode() ? Json.MAPPER.nullNode() : element.get(f))).append('|');
    }
    return id.toString();
  }

  private static ArrayNode withoutValues(JsonNode list, JsonNode remove) {
    ArrayNode out = Json.MAPPER.createArrayNode();
    List<JsonNode> gone = new ArrayList<>();
    remove.forEach(gone::add);
    if (list.isArray()) {
      list.forEach(v -> {
        if (!gone.contains(v)) {
          out.add(v);
        }
      });
    }
    return out;
  }

  /** A value without directive keys, for the parts that are copied rather than merged. */
  private static JsonNode strip(JsonNode value) {
    if (value.isObject()) {
      ObjectNode out = Json.object();
      value.fields().forEachRemaining(e -> {
        if (!e.getKey().startsWith("$")) {
          out.set(e.getKey(), strip(e.getValue()));
        }
      });
      return out;
    }
    if (value.isArray()) {
      ArrayNode out = Json.MAPPER.createArrayNode();
      value.forEach(v -> out.add(strip(v)));
      return out;
    }
    return value;
  }
}
