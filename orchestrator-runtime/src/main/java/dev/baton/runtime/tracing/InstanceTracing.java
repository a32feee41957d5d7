package dev.baton.runtime.tracing;

import dev.baton.contract.Headers;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessageTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Map;

/**
 * The spans of an instance, one trace per instance: the start request (continuing the caller's {@code traceparent},
 * or a new root) is the trace; each dispatch is a producer span whose context is the command's {@code traceparent};
 * a worker continues it and answers with its own; applying the result is a consumer span under the worker's, and the
 * dispatches it makes are its children. Work that no event carries (a timeout, a signal, cancel, retry) continues the
 * instance's stored {@code traceparent}, so a restart, a replayed dead letter or a timer days later stays in the
 * same trace.
 */
public final class InstanceTracing {

  private final Tracer tracer;

  public InstanceTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("dev.baton.runtime");
  }

  /** The server span of a start request; {@code headers} are the request's (for its {@code traceparent}). */
  public Span startRequest(Map<String, Object> headers, String namespace, String workflow) {
    return tracer.spanBuilder("start " + namespace + "/" + workflow)
        .setParent(MessageTracing.extract(headers))
        .setSpanKind(SpanKind.SERVER)
        .setAttribute("baton.namespace", namespace)
        .setAttribute("baton.workflow", workflow)
        .startSpan();
  }

  /**
   * The headers ({@code traceparent}, {@code tracestate}) of a command being dispatched: a producer span, ended at
   * once (it marks the dispatch; the worker's span measures the work), under the current span when there is one (the
   * start request, an event being applied), else under the instance's trace.
   */
  public Map<String, String> dispatch(String instanceTraceparent, String instanceId, String workflow, String step,
      int attempt, String action) {
    Span span = under(tracer.spanBuilder("dispatch " + step), instanceTraceparent)
        .setSpanKind(SpanKind.PRODUCER)
        .setAttribute("messaging.system", "rabbitmq")
        .setAttribute("baton.instance", instanceId)
        .setAttribute("baton.workflow", workflow)
        .setAttribute("baton.step", step)
        .setAttribute("baton.attempt", attempt)
        .setAttribute("baton.action", action)
        .startSpan();
    span.end();
    return MessageTracing.headersOf(span.getSpanContext());
  }

  /** The span of applying an event: under the worker's span its {@code traceparent} names, else the instance's. */
  public Span applying(Map<String, Object> eventHeaders, String instanceTraceparent, String instanceId, String step,
      String action, String result) {
    Context fromEvent = MessageTracing.extract(eventHeaders);
    Context parent = Span.fromContext(fromEvent).getSpanContext().isValid() ? fromEvent
        : MessageTracing.fromTraceparent(instanceTraceparent).orElse(Context.root());
    return tracer.spanBuilder("apply " + step + " " + result)
        .setParent(parent)
        .setSpanKind(SpanKind.CONSUMER)
        .setAttribute("baton.instance", instanceId)
        .setAttribute("baton.step", step)
        .setAttribute("baton.action", action)
        .setAttribute("baton.result", result)
        .startSpan();
  }

  /**
   * A span of the instance for work no event carries: {@code timeout <step>}, {@code signal <name>}, {@code cancel},
   * {@code retry}, {@code finished <STATUS>}. The caller makes it current while the work runs and ends it.
   */
  public Span instanceWork(String name, String instanceTraceparent, String instanceId) {
    return under(tracer.spanBuilder(name), instanceTraceparent)
        .setSpanKind(SpanKind.INTERNAL)
        .setAttribute("baton.instance", instanceId)
        .startSpan();
  }

  /**
   * The {@code traceparent} to store on a new instance: the current span (the start request's), or, when the start
   * comes from elsewhere (a test, a batch), a span of its own that begins the instance's trace.
   */
  public String startTraceparent(String namespace, String workflow) {
    if (Span.current().getSpanContext().isValid()) {
      return traceparentOf(Span.current());
    }
    Span start = tracer.spanBuilder("start " + namespace + "/" + workflow).setNoParent()
        .setAttribute("baton.namespace", namespace).setAttribute("baton.workflow", workflow).startSpan();
    start.end();
    return traceparentOf(start);
  }

  /** The {@code traceparent} to store on an instance: the span that started it. */
  public static String traceparentOf(Span span) {
    return MessageTracing.headersOf(span.getSpanContext()).get("traceparent");
  }

  /**
   * The log fields of a message about an instance, from its headers (docs/message-contract.md): {@code
   * baton-instance} (else {@code instanceFallback}: a command's correlation id), the {@code workflow} known from
   * elsewhere (the queue an event came from; null: the {@code baton-workflow} header), {@code baton-step} and the
   * {@code traceparent}'s trace.
   */
  public static LogFields.Scope logFieldsOf(Map<String, Object> headers, String instanceFallback, String workflow) {
    Map<String, Object> h = headers == null ? Map.of() : headers;
    String instance = Headers.text(h.get(Headers.INSTANCE));
    return LogFields.open(instance != null ? instance : instanceFallback,
        workflow != null ? workflow : Headers.text(h.get(Headers.WORKFLOW)), Headers.text(h.get(Headers.STEP)),
        MessageTracing.traceIdOf(Headers.text(h.get(Headers.TRACEPARENT))));
  }

  private static SpanBuilder under(SpanBuilder builder, String instanceTraceparent) {
    if (Span.current().getSpanContext().isValid()) {
      return builder.setParent(Context.current());
    }
    return builder.setParent(MessageTracing.fromTraceparent(instanceTraceparent).orElse(Context.root()));
  }
}
