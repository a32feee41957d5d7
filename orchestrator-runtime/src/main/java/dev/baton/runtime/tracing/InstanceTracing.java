package dev.baton.runtime.tracing;

import dev.baton.contract.Headers;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessagePropagation;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.messaging.tracing.MessagingSpans;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Map;

/**
 * The spans of an instance, one trace per instance: the start request (continuing the caller's context, or a new
 * root) is the trace; each dispatch is a producer span ({@code create <exchange>}: the command written to the
 * outbox) that the relay's {@code publish <exchange>} continues; a worker's {@code process} span continues the
 * publish and its result event carries the worker's context; applying the result is a consumer span ({@code process
 * <event exchange>}) under it, and the dispatches it makes are its children. Context crosses messages through the
 * configured propagators ({@link MessagePropagation}), baggage included: what a start request or an event carries
 * goes on with the commands made under it. Work that no event carries (a timeout, a signal, cancel, retry) continues
 * the instance's stored {@code traceparent} (no baggage), so a restart, a replayed dead letter or a timer days later
 * stays in the same trace. Messaging spans follow OpenTelemetry's conventions ({@link MessagingSpans}), with Baton's
 * own attributes beside.
 */
public final class InstanceTracing {

  private final Tracer tracer;
  private final MessagePropagation propagation;

  public InstanceTracing(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer("dev.baton.runtime");
    this.propagation = MessagePropagation.of(openTelemetry);
  }

  /**
   * The context of a start request: its server span, under the context the request's {@code headers} carry (its
   * baggage too). The caller makes it current and ends the span.
   */
  public Context startRequest(Map<String, ?> headers, String namespace, String workflow) {
    Context request = propagation.extract(headers);
    Span span = tracer.spanBuilder("start " + namespace + "/" + workflow)
        .setParent(request)
        .setSpanKind(SpanKind.SERVER)
        .setAttribute("baton.namespace", namespace)
        .setAttribute("baton.workflow", workflow)
        .startSpan();
    return request.with(span);
  }

  /** The names of the headers the propagators read (a start request's are looked up by them). */
  public Iterable<String> contextHeaders() {
    return propagation.fields();
  }

  /**
   * The headers (trace context, baggage) of a command being dispatched: a producer span of {@code message}, ended at
   * once (it marks the dispatch; the relay's publish and the worker's process spans follow it), under the current
   * context when it has a span (the start request, an event being applied), else under the instance's trace.
   */
  public Map<String, String> dispatch(String instanceTraceparent, MessagingSpans.Message message, String instanceId,
      String workflow, String step, int attempt, String action) {
    Context parent = Span.current().getSpanContext().isValid() ? Context.current()
        : MessageTracing.fromTraceparent(instanceTraceparent).orElse(Context.root());
    Span span = MessagingSpans.builder(tracer, MessagingSpans.Operation.CREATE, message)
        .setParent(parent)
        .setAttribute("baton.instance", instanceId)
        .setAttribute("baton.workflow", workflow)
        .setAttribute("baton.step", step)
        .setAttribute("baton.attempt", attempt)
        .setAttribute("baton.action", action)
        .startSpan();
    span.end();
    return propagation.headersOf(parent.with(span));
  }

  /**
   * The context of applying an event, to make current while it is applied (and end its span after): a consumer span
   * under the worker's context that {@code eventContext} (the event's headers) carries, else under the instance's
   * trace; the event's baggage goes on with the commands dispatched under it.
   */
  public Context applying(Map<String, String> eventContext, MessagingSpans.Message event, String instanceTraceparent,
      String instanceId, String step, String action, String result) {
    Context fromEvent = propagation.extract(eventContext);
    Context parent = Span.fromContext(fromEvent).getSpanContext().isValid() ? fromEvent
        : Baggage.fromContext(fromEvent).storeInContext(
            MessageTracing.fromTraceparent(instanceTraceparent).orElse(Context.root()));
    Span span = MessagingSpans.builder(tracer, MessagingSpans.Operation.PROCESS, event)
        .setParent(parent)
        .setAttribute("baton.instance", instanceId)
        .setAttribute("baton.step", step)
        .setAttribute("baton.action", action)
        .setAttribute("baton.result", result)
        .startSpan();
    return parent.with(span);
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

  /** Under the current span, else under the instance's stored trace. */
  private static SpanBuilder under(SpanBuilder builder, String instanceTraceparent) {
    if (Span.current().getSpanContext().isValid()) {
      return builder.setParent(Context.current());
    }
    return builder.setParent(MessageTracing.fromTraceparent(instanceTraceparent).orElse(Context.root()));
  }
}
