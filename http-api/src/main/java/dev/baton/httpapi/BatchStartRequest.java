package dev.baton.httpapi;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The body of a batch start: {@code {"instances": [{"businessKey": "...", "input": {...}}, ...]}}, 1 to
 * {@value #MAX_INSTANCES} starts, each checked as a single start is; one bad item refuses the whole batch (nothing is
 * started), naming the item.
 */
public record BatchStartRequest(@JsonProperty(required = true) List<StartRequest> instances) {

  public static final int MAX_INSTANCES = 1000;
  private static final String SHAPE = "{\"instances\": [{\"businessKey\": \"...\", \"input\": {...}}, ...]}";

  public static BatchStartRequest parse(byte[] body) {
    JsonNode json = RequestBody.read(body, SHAPE);
    if (json == null || !json.isObject()) {
      throw new InvalidRequest("the body must be a JSON object: " + SHAPE);
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("instances")) {
        throw new InvalidRequest("unknown field '" + name + "': a batch start takes instances");
      }
    }
    JsonNode items = json.get("instances");
    if (items == null || !items.isArray()) {
      throw new InvalidRequest("instances must be a list of starts: " + SHAPE);
    }
    if (items.isEmpty() || items.size() > MAX_INSTANCES) {
      throw new InvalidRequest("instances holds " + items.size() + " starts: a batch takes 1 to " + MAX_INSTANCES);
    }
    List<StartRequest> starts = new ArrayList<>(items.size());
    for (int i = 0; i < items.size(); i++) {
      starts.add(StartRequest.parse(items.get(i), "instances[" + i + "]."));
    }
    return new BatchStartRequest(starts);
  }
}
