package dev.baton.runtime.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The runtime's OpenTelemetry, configured by the standard {@code OTEL_*} variables (OTEL_TRACES_EXPORTER=otlp or
 * logging, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_PROPAGATORS, OTEL_SERVICE_NAME,
 * OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, ...). Exporting is off unless an exporter is named, but spans are
 * still made: their ids become the commands' trace context, the instance's trace id in the API and the {@code
 * traceId} of log lines, so a trace collector added later finds the same ids. OTLP goes over http/protobuf (to port
 * 4318) unless {@code OTEL_EXPORTER_OTLP_PROTOCOL=grpc} (port 4317). The propagators are OpenTelemetry's default,
 * {@code tracecontext,baggage}, unless {@code OTEL_PROPAGATORS} names others (b3, b3multi, jaeger, ottrace, xray,
 * none); an unknown one fails the start.
 */
public final class RuntimeTracing implements AutoCloseable {

  /**
   * Under the user's {@code OTEL_*} variables and {@code otel.*} properties, which win. The OTLP protocol is
   * http/protobuf rather than OpenTelemetry's own default, grpc, as it was before grpc was shipped: an endpoint given
   * alone keeps meaning port 4318.
   */
  static final Map<String, String> DEFAULTS = Map.of(
      "otel.service.name", "baton-runtime",
      "otel.traces.exporter", "none",
      "otel.metrics.exporter", "none",
      "otel.logs.exporter", "none",
      "otel.exporter.otlp.protocol", "http/protobuf");

  private final OpenTelemetry openTelemetry;
  private final AutoCloseable closeable;

  private RuntimeTracing(OpenTelemetry openTelemetry, AutoCloseable closeable) {
    this.openTelemetry = openTelemetry;
    this.closeable = closeable;
  }

  /** From {@code OTEL_*} environment variables and {@code otel.*} system properties, over the defaults above. */
  public static RuntimeTracing fromEnvironment() {
    return fromEnvironment(System.getenv());
  }

  static RuntimeTracing fromEnvironment(Map<String, String> env) {
    String exporter = System.getProperty("otel.traces.exporter", env.getOrDefault("OTEL_TRACES_EXPORTER", "none"));
    boolean exporting = !(exporter.isBlank() || exporter.trim().equals("none"));
    Map<String, String> fromEnv = new HashMap<>();
    env.forEach((k, v) -> {
      if (k.startsWith("OTEL_")) {
        fromEnv.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v);
      }
    });
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> DEFAULTS)
        .addPropertiesCustomizer(config -> fromEnv) // the variables given (the process's own, unless a test's)
        // The SDK makes no-op spans (no ids) when it has no span processor, as it would without an exporter: one
        // that keeps nothing makes it make real spans, sent nowhere.
        .addTracerProviderCustomizer((builder, config) ->
            exporting ? builder : builder.addSpanProcessor(new Nowhere()))
        .disableShutdownHook() // closed with the runtime, after the last span
        .build()
        .getOpenTelemetrySdk();
    return new RuntimeTracing(sdk, sdk);
  }

  /** An OpenTelemetry the caller owns (tests: an in-memory exporter). */
  public static RuntimeTracing of(OpenTelemetry openTelemetry) {
    return new RuntimeTracing(openTelemetry, () -> {});
  }

  public OpenTelemetry openTelemetry() {
    return openTelemetry;
  }

  @Override
  public void close() throws Exception {
    closeable.close();
  }

  /** A span processor that keeps nothing (see {@link #fromEnvironment(Map)}). */
  private static final class Nowhere implements SpanProcessor {
    @Override
    public void onStart(Context parent, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
      return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {}

    @Override
    public boolean isEndRequired() {
      return false;
    }
  }
}
