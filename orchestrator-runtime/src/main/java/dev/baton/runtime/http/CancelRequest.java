package dev.baton.runtime.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Iterator;

/** The body of a cancel: none, or {@code {"compensate": true|false}}. */
record CancelRequest(boolean compensate) {

  static CancelRequest parse(byte[] body) {
    if (body == null || body.length == 0) {
      return new CancelRequest(false);
    }
    JsonNode json = JsonBody.read(body, "{\"compensate\": true} or nothing");
    if (!json.isObject()) {
      throw ApiError.badRequest("the body must be a JSON object such as {\"compensate\": true}");
    }
    for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("compensate")) {
        throw ApiError.badRequest("unknown field '" + name + "': a cancel takes only compensate");
      }
    }
    JsonNode compensate = json.get("compensate");
    if (compensate != null && !compensate.isNull() && !compensate.isBoolean()) {
      throw ApiError.badRequest("compensate must be true or false");
    }
    return new CancelRequest(compensate != null && compensate.asBoolean());
  }
}
