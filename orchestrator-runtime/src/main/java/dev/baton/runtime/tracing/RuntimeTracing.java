package dev.baton.runtime.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Map;

/**
 * The runtime's OpenTelemetry, configured by the standard {@code OTEL_*} variables (OTEL_TRACES_EXPORTER=otlp or
 * logging, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, ...). Exporting is off unless an exporter is named, but
 * spans are still made: their ids become the commands' {@code traceparent}, the instance's trace id in the API and
 * the {@code traceId} of log lines, so a trace collector added later finds the same ids.
 */
public final class RuntimeTracing implements AutoCloseable {

  private static final Map<String, String> DEFAULTS = Map.of(
      "otel.service.name", "baton-runtime",
      "otel.traces.exporter", "none",
      "otel.metrics.exporter", "none",
      "otel.logs.exporter", "none");

  private final OpenTelemetry openTelemetry;
  private final AutoCloseable closeable;

  private RuntimeTracing(OpenTelemetry openTelemetry, AutoCloseable closeable) {
    this.openTelemetry = openTelemetry;
    this.closeable = closeable;
  }

  /** From {@code OTEL_*} environment variables and {@code otel.*} system properties, over the defaults above. */
  public static RuntimeTracing fromEnvironment() {
    OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
        .addPropertiesSupplier(() -> DEFAULTS)
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
}
