package dev.baton.runtime.metrics;

import io.opentelemetry.api.trace.Span;
import io.prometheus.metrics.tracer.common.SpanContext;

/**
 * Exemplars from the current OpenTelemetry span: a step-latency observation made while an event is applied carries
 * that trace's id, so a slow bucket in Grafana leads to the trace of one slow step (OpenMetrics scrape format).
 */
final class TraceExemplars implements SpanContext {

  @Override
  public String getCurrentTraceId() {
    io.opentelemetry.api.trace.SpanContext span = Span.current().getSpanContext();
    return span.isValid() ? span.getTraceId() : null;
  }

  @Override
  public String getCurrentSpanId() {
    io.opentelemetry.api.trace.SpanContext span = Span.current().getSpanContext();
    return span.isValid() ? span.getSpanId() : null;
  }

  @Override
  public boolean isCurrentSpanSampled() {
    return Span.current().getSpanContext().isSampled();
  }

  @Override
  public void markCurrentSpanAsExemplar() {
    // Nothing to mark: the span is exported (or not) by the tracing configuration alone.
  }
}
