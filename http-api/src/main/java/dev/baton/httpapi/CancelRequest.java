package dev.baton.httpapi;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;

/** The body of a cancel: none, or {@code {"compensate": true|false}}. */
public record CancelRequest(boolean compensate) {

  public static CancelRequest parse(byte[] body) {
    if (body == null || body.length == 0) {
      return new CancelRequest(false);
    }
    JsonNode json = RequestBody.read(body, "{\"compensate\": true} or nothing");
    if (!json.isObject()) {
      throw new InvalidRequest("the body must be a JSON object such as {\"compensate\": true}");
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("compensate")) {
        throw new InvalidRequest("unknown field '" + name + "': a cancel takes only compensate");
      }
    }
    JsonNode compensate = json.get("compensate");
    if (compensate != null && !compensate.isNull() && !compensate.isBoolean()) {
      throw new InvalidRequest("compensate must be true or false");
    }
    return new CancelRequest(compensate != null && compensate.asBoolean());
  }
}
