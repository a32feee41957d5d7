package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The body of a bulk operation ({@code POST /api/v1/operations}): an action on every instance a search finds,
 * {@code {"action": "cancel"|"retry"|"signal", "filter": {<the search's fields>}, "compensate": true, "signal": "...",
 * "body": {...}, "dryRun": true}}. The filter takes the search's fields but {@code limit} and {@code cursor}, and at
 * least one of them: an operation on every instance there is has to be asked for field by field.
 *
 * @param filter the search's fields as given, for the operation's record
 * @param query the search those fields make (not a field of the body: made from {@code filter})
 * @param compensate a cancel's: undo the completed steps first
 * @param signal a signal's name; null for the other actions
 * @param body a signal's body (any JSON), or null
 * @param dryRun only count what the filter finds: nothing is created or changed
 */
public record OperationRequest(@JsonProperty(required = true) String action,
    @JsonProperty(required = true) Map<String, String> filter, @JsonIgnore InstanceQuery query, boolean compensate,
    String signal, JsonNode body, boolean dryRun) {

  public static final Set<String> ACTIONS = Set.of("cancel", "retry", "signal");
  private static final Set<String> FIELDS = Set.of("action", "filter", "compensate", "signal", "body", "dryRun");
  private static final String EXAMPLE = "{\"action\": \"retry\", \"filter\": {\"workflow\": \"order\","
      + " \"status\": \"FAILED\"}}";

  public static OperationRequest parse(byte[] bytes) {
    JsonNode json = RequestBody.read(bytes, EXAMPLE);
    if (!json.isObject()) {
      throw new InvalidRequest("the body must be a JSON object such as " + EXAMPLE);
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!FIELDS.contains(name)) {
        throw new InvalidRequest("unknown field '" + name + "': an operation takes " + String.join(", ",
            FIELDS.stream().sorted().toList()));
      }
    }
    String action = json.path("action").asText(null);
    if (action == null || !ACTIONS.contains(action)) {
      throw new InvalidRequest("action must be one of cancel, retry, signal; got " + json.get("action"));
    }
    JsonNode filter = json.get("filter");
    if (!(filter instanceof ObjectNode) || filter.isEmpty()) {
      throw new InvalidRequest("filter must be an object with at least one of the search's fields (namespace,"
          + " workflow, status, businessKeyPrefix, step, errorCode, createdAfter, createdBefore)");
    }
    Map<String, String> fields = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = filter.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().equals("limit") || e.getKey().equals("cursor")) {
        throw new InvalidRequest("filter." + e.getKey() + " is a search's paging, not a filter");
      }
      if (!e.getValue().isTextual()) {
        throw new InvalidRequest("filter." + e.getKey() + " must be a string");
      }
      fields.put(e.getKey(), e.getValue().asText());
    }
    InstanceQuery query = InstanceQuery.parse(fields.keySet(), fields::get);
    boolean compensate = bool(json, "compensate");
    if (compensate && !action.equals("cancel")) {
      throw new InvalidRequest("compensate belongs to a cancel");
    }
    String signal = json.path("signal").asText(null);
    if (action.equals("signal") && (signal == null || signal.isBlank() || signal.length() > ApiPaths.MAX_SIGNAL_NAME)) {
      throw new InvalidRequest("a signal operation needs signal: the signal's name, 1 to " + ApiPaths.MAX_SIGNAL_NAME
          + " characters");
    }
    if (!action.equals("signal") && (signal != null || json.has("body"))) {
      throw new InvalidRequest("signal and body belong to a signal operation");
    }
    return new OperationRequest(action, Map.copyOf(fields), query, compensate, signal,
        json.has("body") ? json.get("body") : null, bool(json, "dryRun"));
  }

  private static boolean bool(JsonNode json, String name) {
    JsonNode v = json.get(name);
    if (v != null && !v.isNull() && !v.isBoolean()) {
      throw new InvalidRequest(name + " must be true or false");
    }
    return v != null && v.asBoolean();
  }
}
