package dev.baton.testing;

import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

/**
 * An OpenTelemetry whose spans end up in an in-memory exporter, with OpenTelemetry's default propagators (W3C trace
 * context and baggage, as OTEL_PROPAGATORS' default): the SDK's own test extension propagates trace context only.
 */
public final class InMemoryTraces {

  private InMemoryTraces() {}

  public static OpenTelemetrySdk into(InMemorySpanExporter exporter) {
    return OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build())
        .setPropagators(ContextPropagators.create(TextMapPropagator.composite(W3CTraceContextPropagator.getInstance(),
            W3CBaggagePropagator.getInstance())))
        .build();
  }
}
