package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.baton.contract.Headers;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * A command as a handler sees it (docs/design.md#message-contract): the body's {@code input} and ids, the {@code baton-*} headers, and
 * how many worker-level retries it has had.
 */
public final class Command {

  private final String name;
  private final InboundMessage message;
  private final JsonNode body;
  private final int retries;
  private final boolean lastAttempt;
  private final Map<String, Object> headers;

  Command(String name, InboundMessage message, JsonNode body, int retries, boolean lastAttempt) {
    this.name = name;
    this.message = message;
    this.body = body;
    this.retries = retries;
    this.lastAttempt = lastAttempt;
    this.headers = HeaderValues.plain(message.rawHeaders());
  }

  /** The command name, e.g. {@code pay}. */
  public String name() {
    return name;
  }

  /** The AMQP {@code message_id}: the key of idempotency. */
  public String messageId() {
    return message.messageId();
  }

  /** The AMQP {@code correlation_id}: the workflow instance id. */
  public String correlationId() {
    return message.properties().getCorrelationId();
  }

  public String instanceId() {
    return textOr("instanceId", Headers.INSTANCE);
  }

  public String step() {
    return textOr("step", Headers.STEP);
  }

  /** The orchestrator's dispatch attempt of this step (1 first); not to be confused with {@link #retries()}. */
  public int attempt() {
    JsonNode a = body.get("attempt");
    if (a != null && a.canConvertToInt()) {
      return a.asInt();
    }
    try {
      Long h = HeaderValues.number(message.rawHeaders().get(Headers.ATTEMPT));
      return h == null ? 1 : h.intValue();
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  public String businessKey() {
    JsonNode k = body.get("businessKey");
    return k == null || k.isNull() ? null : k.asText();
  }

  /** The step's input: the instance input plus earlier steps' outputs; an empty object when absent. */
  public JsonNode input() {
    JsonNode in = body.get("input");
    return in == null || in.isNull() ? JsonNodeFactory.instance.objectNode() : in;
  }

  /**
   * The input as {@code type} (unknown fields ignored).
   *
   * @throws UnprocessableMessageException when it does not fit: the SDK parks the command instead of retrying it
   */
  public <T> T inputAs(Class<T> type) {
    return Bodies.convert(input(), type);
  }

  /** The whole body. */
  public JsonNode body() {
    return body;
  }

  /** Worker-level retries so far ({@code baton-retries}): 0 on the first delivery. */
  public int retries() {
    return retries;
  }

  /** Whether a technical failure now would dead-letter the command instead of retrying it. */
  public boolean isLastAttempt() {
    return lastAttempt;
  }

  /**
   * When the runtime treats this attempt as timed out ({@code baton-deadline}); empty for a step without a timeout
   * (or an unreadable header). The SDK never starts a handler after it, and stops waiting for one at it; a handler
   * whose effect must not land after the attempt timed out (the runtime may have compensated or re-dispatched by
   * then) can fence its effect by it, e.g. by making its commit conditional on {@code Instant.now()} being before
   * it.
   */
  public Optional<Instant> deadline() {
    return HandlerLimits.deadline(message);
  }

  /** Every header, strings as {@link String}. */
  public Map<String, Object> headers() {
    return headers;
  }

  /** A header as text, or null. */
  public String header(String name) {
    Object v = headers.get(name);
    return v == null ? null : v.toString();
  }

  public String entity() {
    return header(Headers.ENTITY);
  }

  public String action() {
    return header(Headers.ACTION);
  }

  public String workflow() {
    return header(Headers.WORKFLOW);
  }

  /** Whether the broker delivered it before (a previous consumer did not ack it). */
  public boolean redelivered() {
    return message.redelivered();
  }

  private String textOr(String field, String header) {
    JsonNode v = body.get(field);
    return v == null || v.isNull() ? header(header) : v.asText();
  }

  @Override
  public String toString() {
    return "Command[" + name + ", message_id=" + messageId() + ", instance=" + instanceId() + ", step=" + step()
        + ", retries=" + retries + "]";
  }
}
