package dev.baton.devapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.util.Iterator;
import java.util.Map;

/** JSON merge patch (RFC 7386): objects merge key by key, {@code null} removes a key, anything else replaces. */
final class MergePatch {

  private MergePatch() {}

  static JsonNode apply(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result = target != null && target.isObject() ? ((ObjectNode) target).deepCopy() : Json.object();
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().isNull()) {
        result.remove(e.getKey());
      } else {
        result.set(e.getKey(), apply(result.get(e.getKey()), e.getValue()));
      }
    }
    return result;
  }
}
