package dev.baton.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.rabbitmq.client.AMQP;
import dev.baton.contract.EventResult;
import dev.baton.contract.Headers;
import dev.baton.contract.Names;
import dev.baton.messaging.OutboundMessage;
import dev.baton.messaging.tracing.MessagingSpans;
import io.opentelemetry.api.trace.SpanContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Builds the result event of a command (docs/design.md#message-contract): routing key {@code <baton-entity>.<baton-action>.<result>} on
 * the service's event exchange, every {@code baton-*} header and {@code traceparent} copied, the correlation id
 * copied, the result's details in the body.
 */
final class ResultEvents {

  private final String eventExchange;
  private final CommandTracing tracing;

  ResultEvents(String service, CommandTracing tracing) {
    this.eventExchange = Names.eventExchange(service);
    this.tracing = tracing;
  }

  /** Whether an event can be addressed at all: the routing key needs the entity and the action. */
  static boolean addressable(InboundMessage command) {
    return command.header(Headers.ENTITY) != null && command.header(Headers.ACTION) != null;
  }

  /**
   * The message id of the event answering a command: the same command and result always give the same id, so a
   * re-published event (after a redelivery, or for a duplicate command) is recognisably the same event. Commands
   * without a message id get a random one.
   */
  static String eventMessageId(String commandMessageId, EventResult result) {
    if (commandMessageId == null || commandMessageId.isBlank()) {
      return UUID.randomUUID().toString();
    }
    return nameUuid(("baton-event/" + commandMessageId + "/" + result.key()).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
    try {
      return MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("MD5 is part of every Java runtime", e);
    }
  });

  /** Exactly {@link UUID#nameUUIDFromBytes} (version 3), without looking the digest up for every event. */
  static UUID nameUuid(byte[] name) {
    byte[] md5 = MD5.get().digest(name);
    md5[6] &= 0x0f;
    md5[6] |= 0x30;
    md5[8] &= 0x3f;
    md5[8] |= (byte) 0x80;
    long msb = 0;
    long lsb = 0;
    for (int i = 0; i < 8; i++) {
      msb = (msb << 8) | (md5[i] & 0xff);
      lsb = (lsb << 8) | (md5[i + 8] & 0xff);
    }
    return new UUID(msb, lsb);
  }

  /**
   * The event answering {@code command} with {@code outcome}.
   *
   * @param commandBody the parsed body, or null when it could not be parsed (the ids then come from the headers)
   */
  OutboundMessage event(InboundMessage command, JsonNode commandBody, CommandResult outcome) {
    return event(command, commandBody, outcome, SpanContext.getInvalid());
  }

  /**
   * The event answering {@code command} with {@code outcome}, its trace context naming the span of its publishing
   * under {@code handling} (the span the handler ran in) when that span is valid, else the command's {@code
   * traceparent} copied.
   */
  OutboundMessage event(InboundMessage command, JsonNode commandBody, CommandResult outcome, SpanContext handling) {
    String routingKey = Names.eventRoutingKey(command.header(Headers.ENTITY), command.header(Headers.ACTION),
        outcome.result());
    String messageId = eventMessageId(command.messageId(), outcome.result());
    String correlationId = command.properties().getCorrelationId();
    byte[] body = Bodies.write(body(command, commandBody, outcome));
    Map<String, Object> headers = copiedHeaders(command);
    headers.putAll(tracing.resultContext(command, handling,
        new MessagingSpans.Message(eventExchange, routingKey, messageId, correlationId, body.length)));
    AMQP.BasicProperties properties = new AMQP.BasicProperties.Builder()
        .messageId(messageId)
        .correlationId(correlationId)
        .contentType(Headers.CONTENT_TYPE_JSON)
        .timestamp(new Date())
        .deliveryMode(2)
        .headers(headers)
        .build();
    // mandatory: an event no queue is bound for comes back and is published again (Settlement), never dropped
    return new OutboundMessage(eventExchange, routingKey, true, properties, body,
        outcome.result().key() + " event " + routingKey);
  }

  private static Map<String, Object> copiedHeaders(InboundMessage command) {
    Map<String, Object> headers = new LinkedHashMap<>();
    command.rawHeaders().forEach((name, value) -> {
      if (name.startsWith(Headers.BATON_PREFIX) || name.equals(Headers.TRACEPARENT)) {
        headers.put(name, value);
      }
    });
    return headers;
  }

  private static ObjectNode body(InboundMessage command, JsonNode commandBody, CommandResult outcome) {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.set("instanceId", field(commandBody, "instanceId", command.header(Headers.INSTANCE)));
    body.set("step", field(commandBody, "step", command.header(Headers.STEP)));
    body.set("attempt", attempt(commandBody, command.header(Headers.ATTEMPT)));
    if (outcome.result() == EventResult.SUCCESS) {
      body.set("output", outcome.output());
    } else {
      if (outcome.errorCode() != null) { // expired has a reason only
        body.put("errorCode", outcome.errorCode());
      }
      body.put("reason", outcome.reason());
    }
    return body;
  }

  private static JsonNode field(JsonNode commandBody, String name, String fromHeader) {
    JsonNode value = commandBody == null ? null : commandBody.get(name);
    if (value != null && !value.isNull()) {
      return value;
    }
    return fromHeader == null ? JsonNodeFactory.instance.nullNode() : JsonNodeFactory.instance.textNode(fromHeader);
  }

  private static JsonNode attempt(JsonNode commandBody, String fromHeader) {
    JsonNode value = commandBody == null ? null : commandBody.get("attempt");
    if (value != null && value.isNumber()) {
      return value;
    }
    try {
      return fromHeader == null ? JsonNodeFactory.instance.nullNode()
          : JsonNodeFactory.instance.numberNode(Long.parseLong(fromHeader.trim()));
    } catch (NumberFormatException e) {
      return JsonNodeFactory.instance.textNode(fromHeader);
    }
  }
}
