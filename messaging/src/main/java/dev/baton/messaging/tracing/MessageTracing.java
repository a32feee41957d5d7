package dev.baton.messaging.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.Map;
import java.util.Optional;

/**
 * The W3C {@code traceparent} an instance stores (its trace, continued by work no message carries: a timer, a signal,
 * a restart): written and read here whatever propagators carry context on messages ({@link MessagePropagation}).
 */
public final class MessageTracing {

  private static final MessagePropagation W3C = new MessagePropagation(W3CTraceContextPropagator.getInstance());

  private MessageTracing() {}

  /** The {@code traceparent} (and {@code tracestate}) of a span, as headers; empty when the span is not valid. */
  public static Map<String, String> headersOf(SpanContext span) {
    return span.isValid() ? W3C.headersOf(Context.root().with(Span.wrap(span))) : Map.of();
  }

  /**
   * The trace id a {@code traceparent} names (the {@code traceId} of log lines and of the runtime's API), or null when
   * there is none or it is malformed.
   */
  public static String traceIdOf(String traceparent) {
    return fromTraceparent(traceparent).map(c -> Span.fromContext(c).getSpanContext().getTraceId()).orElse(null);
  }

  /** The context a stored {@code traceparent} names, or empty when there is none or it is malformed. */
  public static Optional<Context> fromTraceparent(String traceparent) {
    if (traceparent == null || traceparent.isBlank()) {
      return Optional.empty();
    }
    Context context = W3C.extract(Map.of("traceparent", traceparent));
    return Span.fromContext(context).getSpanContext().isValid() ? Optional.of(context) : Optional.empty();
  }
}
