package dev.baton.devapi;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * {@code Status} documents as a real API server writes them, so kubectl prints its usual messages
 * ({@code Error from server (NotFound): workflows.baton.dev "x" not found}, {@code The Workflow "x" is invalid: ...}).
 */
final class ApiStatus {

  /** One invalid field: {@code field} such as {@code spec.steps[0].timeout}, and what is wrong with it. */
  record Cause(String field, String message) {}

  private ApiStatus() {}

  static ObjectNode notFound(String resource, String group, String name) {
    String qualified = group == null || group.isEmpty() ? resource : resource + "." + group;
    ObjectNode s = failure(404, "NotFound",
        name == null ? "the server could not find the requested resource" : qualified + " \"" + name + "\" not found");
    ObjectNode details = s.putObject("details");
    if (name != null) {
      details.put("name", name);
    }
    if (group != null && !group.isEmpty()) {
      details.put("group", group);
    }
    if (resource != null) {
      details.put("kind", resource);
    }
    return s;
  }

  static ObjectNode invalid(String kind, String group, String name, List<Cause> causes) {
    StringBuilder message = new StringBuilder()
        .append(group.isEmpty() ? kind : kind + "." + group).append(" \"").append(name).append("\" is invalid: ");
    if (causes.size() > 1) {
      message.append('[');
    }
    for (int i = 0; i < causes.size(); i++) {
      message.append(i == 0 ? "" : ", ").append(causes.get(i).field()).append(": ").append(causes.get(i).message());
    }
    if (causes.size() > 1) {
      message.append(']');
    }
    ObjectNode s = failure(422, "Invalid", message.toString());
    ObjectNode details = s.putObject("details").put("name", name).put("group", group).put("kind", kind);
    ArrayNode out = details.putArray("causes");
    for (Cause c : causes) {
      out.addObject().put("reason", "FieldValueInvalid").put("message", c.message()).put("field", c.field());
    }
    return s;
  }

  static ObjectNode badRequest(String message) {
    return failure(400, "BadRequest", message);
  }

  static ObjectNode unsupportedMediaType(String message) {
    return failure(415, "UnsupportedMediaType", message);
  }

  static ObjectNode methodNotAllowed(String message) {
    return failure(405, "MethodNotAllowed", message);
  }

  static ObjectNode failure(int code, String reason, String message) {
    ObjectNode s = Documents.typed("v1", "Status");
    s.putObject("metadata");
    s.put("status", "Failure");
    s.put("message", message);
    s.put("reason", reason);
    s.put("code", code);
    return s;
  }
}
