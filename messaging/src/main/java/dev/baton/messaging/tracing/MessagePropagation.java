package dev.baton.messaging.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Trace context and baggage in AMQP headers through the propagators of an OpenTelemetry ({@code OTEL_PROPAGATORS}:
 * W3C {@code traceparent}/{@code tracestate} and {@code baggage} by default), for the runtime and the worker SDK
 * alike: the one place where message headers are read and written as a propagation carrier. Header values arrive as
 * the AMQP client's {@code LongString}s and are read as text.
 */
public final class MessagePropagation {

  private static final TextMapGetter<Map<String, ?>> GETTER = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, ?> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, ?> carrier, String key) {
      Object value = carrier == null ? null : carrier.get(key);
      return value == null ? null : value.toString();
    }
  };

  private static final TextMapSetter<Map<String, Object>> SETTER = (carrier, key, value) -> carrier.put(key, value);

  private final TextMapPropagator propagator;

  public MessagePropagation(TextMapPropagator propagator) {
    this.propagator = propagator;
  }

  /** The propagators {@code openTelemetry} was configured with. */
  public static MessagePropagation of(OpenTelemetry openTelemetry) {
    return new MessagePropagation(openTelemetry.getPropagators().getTextMapPropagator());
  }

  /**
   * The context (span and baggage) that headers carry, over the root context: nothing of the thread's current context
   * leaks into a message's. The root context when they carry none, or a malformed one.
   */
  public Context extract(Map<String, ?> headers) {
    return headers == null ? Context.root() : propagator.extract(Context.root(), headers, GETTER);
  }

  /**
   * Writes {@code context} into {@code headers}, replacing whatever context they carried (a relayed message names the
   * span that sent it, not the one that wrote it).
   */
  public void inject(Context context, Map<String, Object> headers) {
    propagator.fields().forEach(headers::remove);
    propagator.inject(context, headers, SETTER);
  }

  /** The headers {@code context} is written as. */
  public Map<String, String> headersOf(Context context) {
    Map<String, Object> headers = new LinkedHashMap<>();
    inject(context, headers);
    Map<String, String> text = new LinkedHashMap<>();
    headers.forEach((k, v) -> text.put(k, v.toString()));
    return text;
  }

  /** The headers of {@code headers} that carry context, as text ({@code traceparent}, {@code baggage}, ...). */
  public Map<String, String> contextHeaders(Map<String, ?> headers) {
    Map<String, String> found = new LinkedHashMap<>();
    if (headers != null) {
      for (String field : fields()) {
        String value = GETTER.get(headers, field);
        if (value != null) {
          found.put(field, value);
        }
      }
    }
    return found;
  }

  /** The header names the propagators read and write. */
  public Collection<String> fields() {
    return propagator.fields();
  }
}
