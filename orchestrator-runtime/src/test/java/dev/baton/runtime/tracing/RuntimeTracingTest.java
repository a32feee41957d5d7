package dev.baton.runtime.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.Span;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Without any OTEL_* variable, spans are made (their ids go into commands and logs) and nothing is exported. */
class RuntimeTracingTest {

  @Test
  void spans_have_real_ids_even_when_nothing_exports_them() throws Exception {
    try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of())) {
      Span span = tracing.openTelemetry().getTracer("test").spanBuilder("start").startSpan();
      span.end();
      assertThat(span.getSpanContext().isValid()).isTrue();
      assertThat(span.getSpanContext().isSampled()).isTrue();
    }
  }

  @Test
  void an_exporter_named_in_the_environment_gets_the_spans() throws Exception {
    try (RuntimeTracing tracing = RuntimeTracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "logging"))) {
      Span span = tracing.openTelemetry().getTracer("test").spanBuilder("start").startSpan();
      span.end();
      assertThat(span.getSpanContext().isValid()).isTrue();
    }
  }
}
