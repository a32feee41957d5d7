package dev.baton.messaging.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * W3C trace context in AMQP headers, for the runtime and the worker SDK alike: the message contract carries it as
 * {@code traceparent} (and {@code tracestate} when there is one), so a worker in any language can continue a trace by
 * copying those headers. Header values arrive as the AMQP client's {@code LongString}s and are read as text.
 */
public final class MessageTracing {

  private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

  private static final TextMapGetter<Map<String, Object>> GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, Object> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, Object> carrier, String key) {
      Object value = carrier == null ? null : carrier.get(key);
      return value == null ? null : value.toString();
    }
  };

  private static final TextMapSetter<Map<String, Object>> SETTER = (carrier, key, value) -> carrier.put(key, value);

  private MessageTracing() {}

  /** The context a message's headers carry (the root context when they carry none, or a malformed one). */
  public static Context extract(Map<String, Object> headers) {
    return headers == null ? Context.root() : W3C.extract(Context.root(), headers, GETTER);
  }

  /** Writes the span of {@code context} into {@code headers}; nothing when it has no valid span. */
  public static void inject(Context context, Map<String, Object> headers) {
    if (Span.fromContext(context).getSpanContext().isValid()) {
      W3C.inject(context, headers, SETTER);
    }
  }

  /** The {@code traceparent} (and {@code tracestate}) of a span, as headers; empty when the span is not valid. */
  public static Map<String, String> headersOf(SpanContext span) {
    Map<String, Object> headers = new LinkedHashMap<>();
    inject(Context.root().with(Span.wrap(span)), headers);
    Map<String, String> text = new LinkedHashMap<>();
    headers.forEach((k, v) -> text.put(k, v.toString()));
    return text;
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
    Context context = extract(Map.of("traceparent", traceparent));
    return Span.fromContext(context).getSpanContext().isValid() ? Optional.of(context) : Optional.empty();
  }
}
