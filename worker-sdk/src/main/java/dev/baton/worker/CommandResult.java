package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.contract.EventResult;
import java.io.IOException;
import java.util.Objects;

/**
 * What a command handler decided: {@link #success(Object) success} with an output, or a {@link #failed(String,
 * String) business failure} that the orchestrator acts on without retrying. Technical failures are not outcomes:
 * throw, and the SDK retries along the staircase.
 *
 * <p>An outcome is plain data (the output is held as JSON), so an {@link IdempotencyStore} can keep it with
 * {@link #toJson()} and give it back with {@link #fromJson(String)}.
 */
public final class CommandResult {

  private final EventResult result;
  private final JsonNode output;
  private final String errorCode;
  private final String reason;

  private CommandResult(EventResult result, JsonNode output, String errorCode, String reason) {
    this.result = result;
    this.output = output;
    this.errorCode = errorCode;
    this.reason = reason;
  }

  /** Success without output: the event carries {@code "output": {}}. */
  public static CommandResult success() {
    return new CommandResult(EventResult.SUCCESS, JsonNodeFactory.instance.objectNode(), null, null);
  }

  /**
   * Success; {@code output} (a map, a record, a {@link JsonNode}...) becomes the event's {@code output}, which the
   * orchestrator hands to later steps. It is converted to JSON here, so a value that cannot be converted fails the
   * handler (a technical failure) rather than the publish.
   */
  public static CommandResult success(Object output) {
    JsonNode node = output == null ? JsonNodeFactory.instance.objectNode() : Bodies.MAPPER.valueToTree(output);
    return new CommandResult(EventResult.SUCCESS, node, null, null);
  }

  /** A business failure: published as a {@code failed} event, never retried. */
  public static CommandResult failed(String errorCode, String reason) {
    return new CommandResult(EventResult.FAILED, null, requireText(errorCode, "errorCode"),
        Objects.requireNonNullElse(reason, ""));
  }

  /** The technical {@code error} outcome after retries are spent; only the SDK produces it. */
  static CommandResult error(String errorCode, String reason) {
    return new CommandResult(EventResult.ERROR, null, requireText(errorCode, "errorCode"),
        Objects.requireNonNullElse(reason, ""));
  }

  /**
   * Not run: the command came after its deadline ({@code baton-deadline}); only the SDK produces it, and it is never
   * remembered (a later copy of the command is past its deadline too, and is answered the same way).
   */
  static CommandResult expired(String reason) {
    return new CommandResult(EventResult.EXPIRED, null, null, requireText(reason, "reason"));
  }

  public EventResult result() {
    return result;
  }

  /** The output of a success; {@code null} for a failure. */
  public JsonNode output() {
    return output;
  }

  /** The error code of a failure; {@code null} for a success (and for {@code expired}, which has a reason only). */
  public String errorCode() {
    return errorCode;
  }

  /** The reason of a failure; {@code null} for a success. */
  public String reason() {
    return reason;
  }

  /** {@code {"result":"success","output":{...}}} or {@code {"result":"failed","errorCode":..,"reason":..}}. */
  public String toJson() {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    node.put("result", result.key());
    if (result == EventResult.SUCCESS) {
      node.set("output", output);
    } else {
      if (errorCode != null) {
        node.put("errorCode", errorCode);
      }
      node.put("reason", reason);
    }
    return node.toString();
  }

  /** Reads what {@link #toJson()} wrote. */
  public static CommandResult fromJson(String json) {
    JsonNode node;
    try {
      node = Bodies.MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not a remembered outcome: " + Bodies.shortMessage(e), e);
    }
    EventResult result = EventResult.fromKey(node.path("result").asText())
        .orElseThrow(() -> new IllegalArgumentException("not a remembered outcome: no result success|failed|error"));
    return switch (result) {
      case SUCCESS -> new CommandResult(result, node.path("output").isMissingNode()
          ? JsonNodeFactory.instance.objectNode() : node.get("output"), null, null);
      case FAILED, ERROR -> new CommandResult(result, null, node.path("errorCode").asText(),
          node.path("reason").asText());
      case EXPIRED -> new CommandResult(result, null, null, node.path("reason").asText());
    };
  }

  private static String requireText(String value, String what) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    return value;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CommandResult other && result == other.result && sameOutput(output, other.output)
        && Objects.equals(errorCode, other.errorCode) && Objects.equals(reason, other.reason);
  }

  /** Numbers compare by value: {@code 1234} read back from JSON is an int node, the original may have been a long. */
  private static boolean sameOutput(JsonNode a, JsonNode b) {
    if (a == null || b == null) {
      return a == b;
    }
    return a.equals((x, y) -> x.isNumber() && y.isNumber()
        ? x.decimalValue().compareTo(y.decimalValue())
        : x.equals(y) ? 0 : 1, b);
  }

  @Override
  public int hashCode() {
    return Objects.hash(result, errorCode, reason);
  }

  @Override
  public String toString() {
    return result == EventResult.SUCCESS ? "success" : result.key() + " " + errorCode + ": " + reason;
  }
}
