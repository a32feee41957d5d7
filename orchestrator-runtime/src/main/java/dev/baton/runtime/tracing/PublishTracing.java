package dev.baton.runtime.tracing;

import dev.baton.contract.Headers;
import dev.baton.messaging.tracing.MessagePropagation;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.messaging.tracing.MessagingSpans;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Map;

/**
 * The outbox relay's span of each message it sends: {@code publish <exchange>}, a producer span under the context
 * the message was written with (the dispatch's {@code create} span), whose own context replaces it in the headers
 * sent. A worker's {@code process} span is then the publish's child, so a trace shows when the command left as well
 * as when it was decided, and a command published twice (a channel failure, a restart) shows both sends.
 */
public final class PublishTracing {

  /** No spans, the headers sent as written. */
  public static final PublishTracing NONE = new PublishTracing(OpenTelemetry.noop());

  private final Tracer tracer;
  private final MessagePropagation propagation;

  public PublishTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("dev.baton.runtime");
    this.propagation = MessagePropagation.of(openTelemetry);
  }

  /**
   * Starts the span of sending {@code message}, whose {@code headers} (mutable, about to be sent) then carry it. The
   * caller ends it once the broker has answered.
   */
  public Span publishing(MessagingSpans.Message message, Map<String, Object> headers) {
    Context written = propagation.extract(headers);
    if (!Span.fromContext(written).getSpanContext().isValid()) {
      // An instance outcome carries the instance's stored traceparent, W3C whatever the propagators are.
      written = MessageTracing.fromTraceparent(Headers.text(headers.get(Headers.TRACEPARENT))).orElse(written);
    }
    Span span = MessagingSpans.builder(tracer, MessagingSpans.Operation.PUBLISH, message)
        .setParent(written)
        .setAttribute("baton.instance", text(headers.get(Headers.INSTANCE)))
        .setAttribute("baton.step", text(headers.get(Headers.STEP)))
        .startSpan();
    propagation.inject(written.with(span), headers);
    return span;
  }

  private static String text(Object header) {
    String text = Headers.text(header);
    return text == null ? "" : text;
  }
}
