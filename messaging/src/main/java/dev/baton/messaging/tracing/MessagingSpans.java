package dev.baton.messaging.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;

/**
 * Spans of messages by OpenTelemetry's messaging semantic conventions (RabbitMQ): named {@code <operation>
 * <exchange>}, with {@code messaging.system=rabbitmq}, the operation's type and name, the exchange as the
 * destination, the routing key, the message and correlation ids and the body's size. The keys are the spec's strings:
 * the semantic-conventions artifact at hand predates the {@code messaging.operation.type} names. The caller adds
 * Baton's own attributes ({@code baton.instance}, {@code baton.step}, ...) beside them.
 */
public final class MessagingSpans {

  public static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
  public static final AttributeKey<String> OPERATION_TYPE = AttributeKey.stringKey("messaging.operation.type");
  public static final AttributeKey<String> OPERATION_NAME = AttributeKey.stringKey("messaging.operation.name");
  public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
  public static final AttributeKey<String> ROUTING_KEY =
      AttributeKey.stringKey("messaging.rabbitmq.destination.routing_key");
  public static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");
  public static final AttributeKey<String> CONVERSATION_ID =
      AttributeKey.stringKey("messaging.message.conversation_id");
  public static final AttributeKey<Long> BODY_SIZE = AttributeKey.longKey("messaging.message.body.size");

  /**
   * The operations Baton's spans are: a command written to the outbox (create), sent to the broker (publish, of type
   * send), handled by a worker or an event applied by the runtime (process).
   */
  public enum Operation {
    CREATE("create", "create", SpanKind.PRODUCER),
    PUBLISH("publish", "send", SpanKind.PRODUCER),
    PROCESS("process", "process", SpanKind.CONSUMER);

    final String name;
    final String type;
    final SpanKind kind;

    Operation(String name, String type, SpanKind kind) {
      this.name = name;
      this.type = type;
      this.kind = kind;
    }
  }

  /** What a span says about its message; null fields (and a negative size) are left out. */
  public record Message(String exchange, String routingKey, String messageId, String correlationId, long bodySize) {}

  private MessagingSpans() {}

  /** A span of {@code operation} on {@code message}, its parent still to set. */
  public static SpanBuilder builder(Tracer tracer, Operation operation, Message message) {
    SpanBuilder b = tracer.spanBuilder(message.exchange() == null ? operation.name
            : operation.name + " " + message.exchange())
        .setSpanKind(operation.kind)
        .setAttribute(SYSTEM, "rabbitmq")
        .setAttribute(OPERATION_TYPE, operation.type)
        .setAttribute(OPERATION_NAME, operation.name);
    if (message.exchange() != null) {
      b.setAttribute(DESTINATION, message.exchange());
    }
    if (message.routingKey() != null) {
      b.setAttribute(ROUTING_KEY, message.routingKey());
    }
    if (message.messageId() != null) {
      b.setAttribute(MESSAGE_ID, message.messageId());
    }
    if (message.correlationId() != null) {
      b.setAttribute(CONVERSATION_ID, message.correlationId());
    }
    if (message.bodySize() >= 0) {
      b.setAttribute(BODY_SIZE, message.bodySize());
    }
    return b;
  }
}
