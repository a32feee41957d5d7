package dev.baton.devapi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collection;

/** One Jackson mapper for the documents the dev API writes and the bodies it reads. */
final class Json {

  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ArrayNode array(Collection<String> values) {
    ArrayNode a = MAPPER.createArrayNode();
    values.forEach(a::add);
    return a;
  }

  /** {@code apiVersion} and {@code kind} first, as the API server writes them. */
  static ObjectNode typed(String apiVersion, String kind) {
    ObjectNode o = object();
    o.put("kind", kind);
    o.put("apiVersion", apiVersion);
    return o;
  }

  static JsonNode parse(String text) {
    try {
      return MAPPER.readTree(text == null || text.isBlank() ? "null" : text);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
    }
  }

  static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
