package dev.baton.worker;

import dev.baton.contract.Headers;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessageTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.concurrent.Callable;

/**
 * The span of one handling of a command: a consumer span continuing the command's {@code traceparent} (the runtime's
 * dispatch), current while the handler runs (with the instance's log fields), and the parent of the result event's
 * {@code traceparent}. Each delivery of a command is handled in a span of its own, so the retry staircase shows as
 * sibling spans carrying {@code baton.retries}. Without a configured OpenTelemetry the span is a no-op that passes
 * the command's context on unchanged, so the result event still carries the command's {@code traceparent}.
 */
final class CommandTracing {

  private final Tracer tracer;

  CommandTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("dev.baton.worker");
  }

  Span start(String service, String command, InboundMessage message, int retries) {
    return tracer.spanBuilder(service + " " + command)
        .setParent(MessageTracing.extract(message.rawHeaders()))
        .setSpanKind(SpanKind.CONSUMER)
        .setAttribute("messaging.system", "rabbitmq")
        .setAttribute("baton.service", service)
        .setAttribute("baton.command", command)
        .setAttribute("baton.instance", text(message.header(Headers.INSTANCE)))
        .setAttribute("baton.workflow", text(message.header(Headers.WORKFLOW)))
        .setAttribute("baton.step", text(message.header(Headers.STEP)))
        .setAttribute("baton.retries", retries)
        .startSpan();
  }

  /** The handler as it runs on its own thread: inside the span and the instance's log fields. */
  static <T> Callable<T> within(Span span, InboundMessage message, Callable<T> handler) {
    return () -> {
      try (Scope current = span.makeCurrent();
          LogFields.Scope fields = LogFields.open(message.header(Headers.INSTANCE), message.header(Headers.WORKFLOW),
              message.header(Headers.STEP), traceId(span))) {
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

  /** Ends the span of a handling that failed (the message goes up the retry staircase or is dead-lettered). */
  static void failed(Span span, Throwable failure) {
    span.recordException(failure);
    span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName());
  }

  static String traceId(Span span) {
    return span.getSpanContext().isValid() ? span.getSpanContext().getTraceId() : null;
  }

  private static String text(String value) {
    return value == null ? "" : value;
  }
}
