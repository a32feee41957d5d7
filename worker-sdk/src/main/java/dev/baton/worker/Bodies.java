package dev.baton.worker;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The SDK's JSON: message bodies in, outputs out, remembered outcomes in stores, never quoting a body in an error. */
final class Bodies {

  /**
   * Modules on the class path (java.time, Kotlin, ...) are picked up, so a team's own types convert without
   * configuring the SDK; unknown input fields are ignored because the orchestrator adds earlier steps' outputs to
   * {@code input} that a handler's record usually does not declare.
   */
  static final ObjectMapper MAPPER = new ObjectMapper()
      .findAndRegisterModules()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private Bodies() {}

  static byte[] write(JsonNode node) {
    try {
      return MAPPER.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A message body, which must be a JSON object.
   *
   * @throws UnprocessableMessageException when it is empty, not JSON or not an object
   */
  static JsonNode readObject(byte[] body) {
    JsonNode node;
    try {
      node = body.length == 0 ? null : MAPPER.readTree(body);
    } catch (IOException e) {
      // Only where: parser messages quote the offending token, which may be a secret.
      throw new UnprocessableMessageException("body is not JSON" + location(e));
    }
    if (node == null || node.isMissingNode()) {
      throw new UnprocessableMessageException("body is empty");
    }
    if (!node.isObject()) {
      throw new UnprocessableMessageException("body is JSON but not an object");
    }
    return node;
  }

  private static String location(IOException e) {
    if (e instanceof com.fasterxml.jackson.core.JsonProcessingException p && p.getLocation() != null) {
      return " (line " + p.getLocation().getLineNr() + ", column " + p.getLocation().getColumnNr() + ")";
    }
    return "";
  }

  static <T> T convert(JsonNode node, Class<T> type) {
    try {
      return MAPPER.treeToValue(node, type);
    } catch (IOException e) {
      // The content is there but does not fit the handler's type: retrying will not change that.
      throw new UnprocessableMessageException("cannot read " + type.getSimpleName() + ": " + mismatch(e));
    }
  }

  /**
   * Where and what kind of mismatch, without the offending value: Jackson quotes values, and inputs can hold
   * secrets that must not reach logs, dead-letter headers or error events.
   */
  static String mismatch(IOException e) {
    if (!(e instanceof JsonMappingException m)) {
      return e.getClass().getSimpleName();
    }
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference r : m.getPath()) {
      if (r.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        path.append('[').append(r.getIndex()).append(']');
      }
    }
    String where = path.length() == 0 ? "the input" : "field " + path;
    if (m instanceof MismatchedInputException mi && mi.getTargetType() != null) {
      return where + " is not a valid " + mi.getTargetType().getSimpleName();
    }
    return where + " does not fit (" + e.getClass().getSimpleName() + ")";
  }

  /** Jackson's message without the location trailer (and never the source text, which may hold secrets). */
  static String shortMessage(IOException e) {
    if (e instanceof com.fasterxml.jackson.core.JacksonException j && j.getOriginalMessage() != null) {
      return j.getOriginalMessage();
    }
    return String.valueOf(e.getMessage());
  }
}
