package dev.baton.worker;

import dev.baton.contract.Headers;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessagePropagation;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.messaging.tracing.MessagingSpans;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The span of one handling of a command: a consumer span {@code process <command exchange>} continuing the context
 * the command carries (the runtime's publish), current while the handler runs with the command's baggage (and the
 * instance's log fields), and the parent of the result event's {@code publish <event exchange>} span, whose context
 * the event carries. Context is read and written by the propagators of the OpenTelemetry given to the worker
 * (GlobalOpenTelemetry by default: the agent's, or OTEL_PROPAGATORS under the SDK's autoconfiguration). Each delivery
 * of a command is handled in a span of its own, so the retry staircase shows as sibling spans carrying {@code
 * baton.retries}. Without a configured OpenTelemetry the spans are no-ops and the result event carries the command's
 * {@code traceparent} unchanged. Spans follow OpenTelemetry's messaging conventions ({@link MessagingSpans}).
 */
final class CommandTracing {

  private final Tracer tracer;
  private final MessagePropagation propagation;

  CommandTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("dev.baton.worker");
    this.propagation = MessagePropagation.of(openTelemetry);
  }

  Span start(String service, String command, InboundMessage message, int retries) {
    return MessagingSpans.builder(tracer, MessagingSpans.Operation.PROCESS, new MessagingSpans.Message(
            message.originalExchange(), message.originalRoutingKey(), message.messageId(),
            message.properties().getCorrelationId(), message.body() == null ? -1 : message.body().length))
        .setParent(propagation.extract(message.rawHeaders()))
        .setAttribute("baton.service", service)
        .setAttribute("baton.command", command)
        .setAttribute("baton.instance", text(message.header(Headers.INSTANCE)))
        .setAttribute("baton.workflow", text(message.header(Headers.WORKFLOW)))
        .setAttribute("baton.step", text(message.header(Headers.STEP)))
        .setAttribute("baton.retries", retries)
        .startSpan();
  }

  /**
   * The handler as it runs on its own thread: inside the span, with the command's baggage, and the instance's log
   * fields.
   */
  <T> Callable<T> within(Span span, InboundMessage message, Callable<T> handler) {
    Context context = propagation.extract(message.rawHeaders()).with(span);
    return () -> {
      try (Scope current = context.makeCurrent();
          LogFields.Scope fields = LogFields.open(message.header(Headers.INSTANCE), message.header(Headers.WORKFLOW),
              message.header(Headers.STEP), traceId(span, message))) {
        return handler.call();
      }
    };
  }

  /**
   * The instance's log fields from a message's headers (docs/message-contract.md), for lines outside the handler's
   * span: the trace is the {@code traceparent}'s.
   */
  static LogFields.Scope logFields(InboundMessage message) {
    return LogFields.open(message.header(Headers.INSTANCE), message.header(Headers.WORKFLOW),
        message.header(Headers.STEP), MessageTracing.traceIdOf(message.header(Headers.TRACEPARENT)));
  }

  /**
   * The context headers of {@code event}, the answer to {@code command}: those of a producer span {@code publish
   * <event exchange>} under {@code handling}, with the command's baggage. The span marks the answer and ends at once
   * (the SDK sends the event when the delivery is settled). Empty when {@code handling} is not valid: the event then
   * carries the command's {@code traceparent} as copied.
   */
  Map<String, String> resultContext(InboundMessage command, SpanContext handling, MessagingSpans.Message event) {
    if (!handling.isValid()) {
      return Map.of();
    }
    Context parent = propagation.extract(command.rawHeaders()).with(Span.wrap(handling));
    Span publish = MessagingSpans.builder(tracer, MessagingSpans.Operation.PUBLISH, event)
        .setParent(parent)
        .setAttribute("baton.instance", text(command.header(Headers.INSTANCE)))
        .setAttribute("baton.step", text(command.header(Headers.STEP)))
        .startSpan();
    publish.end();
    return propagation.headersOf(parent.with(publish));
  }

  /** Ends the span of a handling that failed (the message goes up the retry staircase or is dead-lettered). */
  static void failed(Span span, Throwable failure) {
    span.recordException(failure);
    span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
  }

  /** The span's trace, or (no OpenTelemetry configured: a no-op span) the command's {@code traceparent}'s. */
  static String traceId(Span span, InboundMessage message) {
    return span.getSpanContext().isValid() ? span.getSpanContext().getTraceId()
        : MessageTracing.traceIdOf(message.header(Headers.TRACEPARENT));
  }

  private static String text(String value) {
    return value == null ? "" : value;
  }
}
