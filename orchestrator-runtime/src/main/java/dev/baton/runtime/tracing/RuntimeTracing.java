package dev.baton.runtime.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The runtime's OpenTelemetry, configured by the standard {@code OTEL_*} variables (OTEL_TRACES_EXPORTER=otlp or
 * logging, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, ...). Exporting is off unless an exporter is named, but
 * spans are still made: their ids become the commands' {@code traceparent}, the instance's trace id in the API and
 * the {@code traceId} of log lines, so a trace collector added later finds the same ids. OTLP goes over
 * http/protobuf (to port 4318) unless {@code OTEL_EXPORTER_OTLP_PROTOCOL} says otherwise; grpc is not shipped.
 */
public final class RuntimeTracing implements AutoCloseable {

  /**
   * Under the user's {@code OTEL_*} variables and {@code otel.*} properties, which win. The OTLP protocol is
   * http/protobuf because that is the only sender shipped (the JDK's HTTP client, no gRPC or OkHttp): OpenTelemetry's
   * own default, grpc, failed the start with "No GrpcSenderProvider found on classpath".
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
    if (exporter.isBlank() || exporter.trim().equals("none")) {
      // The SDK makes no-op spans (no ids) when it has no span processor, as it would without an exporter: one
      // that keeps nothing makes it make real spans, sent nowhere.
      OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
          .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(new Nowhere()).build())
          .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
          .build();
      return new RuntimeTracing(sdk, sdk);
    }
    Map<String, String> fromEnv = new HashMap<>();
    env.forEach((k, v) -> {
      if (k.startsWith("OTEL_")) {
        fromEnv.put(k.toLowerCase(Locale.ROOT).replace('_', '.'), v);
      }
    });
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> DEFAULTS)
        .addPropertiesCustomizer(config -> fromEnv) // the variables given (the process's own, unless a test's)
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
