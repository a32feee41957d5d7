package dev.baton.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;

/** The body of a start: {@code {"businessKey": "...", "input": {...}}}, checked field by field. */
record StartRequest(String businessKey, ObjectNode input) {

  static final int MAX_BUSINESS_KEY = 256;
  private static final Set<String> FIELDS = Set.of("businessKey", "input");

  static StartRequest parse(byte[] body) {
    return parse(JsonBody.read(body, "{\"businessKey\": \"...\", \"input\": {...}}"), "");
  }

  /**
   * One start, from a request body or an item of a batch.
   *
   * @param where how the errors name the start: "" for a body, "instances[3]." for an item of a batch
   */
  static StartRequest parse(JsonNode json, String where) {
    if (json == null || !json.isObject()) {
      throw ApiError.badRequest((where.isEmpty() ? "the body" : where.substring(0, where.length() - 1))
          + " must be a JSON object: {\"businessKey\": \"...\", \"input\": {...}}");
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw ApiError.badRequest("unknown field '" + where + name + "': a start takes businessKey and input");
      }
    }
    JsonNode key = json.get("businessKey");
    if (key == null || key.isNull()) {
      throw ApiError.badRequest(where + "businessKey is missing: it names the run (e.g. an order id) and makes a start"
          + " idempotent");
    }
    if (!key.isTextual() || key.asText().isBlank()) {
      throw ApiError.badRequest(where + "businessKey must be a non-empty string");
    }
    if (key.asText().length() > MAX_BUSINESS_KEY) {
      throw ApiError.badRequest(where + "businessKey is longer than " + MAX_BUSINESS_KEY + " characters");
    }
    JsonNode input = json.get("input");
    if (input != null && !input.isNull() && !input.isObject()) {
      throw ApiError.badRequest(where + "input must be a JSON object, got "
          + input.getNodeType().name().toLowerCase(Locale.ROOT));
    }
    return new StartRequest(key.asText(), input == null || input.isNull() ? Json.object() : (ObjectNode) input);
  }
}
