package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;

/** The body of a start: {@code {"businessKey": "...", "input": {...}}}, checked field by field. */
public record StartRequest(@JsonProperty(required = true) String businessKey, ObjectNode input) {

  public static final int MAX_BUSINESS_KEY = 256;
  private static final Set<String> FIELDS = Set.of("businessKey", "input");

  public static StartRequest parse(byte[] body) {
    return parse(RequestBody.read(body, "{\"businessKey\": \"...\", \"input\": {...}}"), "");
  }

  /**
   * One start, from a request body or an item of a batch.
   *
   * @param where how the errors name the start: "" for a body, "instances[3]." for an item of a batch
   */
  public static StartRequest parse(JsonNode json, String where) {
    if (json == null || !json.isObject()) {
      throw new InvalidRequest((where.isEmpty() ? "the body" : where.substring(0, where.length() - 1))
          + " must be a JSON object: {\"businessKey\": \"...\", \"input\": {...}}");
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new InvalidRequest("unknown field '" + where + name + "': a start takes businessKey and input");
      }
    }
    JsonNode key = json.get("businessKey");
    if (key == null || key.isNull()) {
      throw new InvalidRequest(where + "businessKey is missing: it names the run (e.g. an order id) and makes a start"
          + " idempotent");
    }
    if (!key.isTextual() || key.asText().isBlank()) {
      throw new InvalidRequest(where + "businessKey must be a non-empty string");
    }
    if (key.asText().length() > MAX_BUSINESS_KEY) {
      throw new InvalidRequest(where + "businessKey is longer than " + MAX_BUSINESS_KEY + " characters");
    }
    JsonNode input = json.get("input");
    if (input != null && !input.isNull() && !input.isObject()) {
      throw new InvalidRequest(where + "input must be a JSON object, got "
          + input.getNodeType().name().toLowerCase(Locale.ROOT));
    }
    return new StartRequest(key.asText(), input == null || input.isNull() ? Json.object() : (ObjectNode) input);
  }
}
