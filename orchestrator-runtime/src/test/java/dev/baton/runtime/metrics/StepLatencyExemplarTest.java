package dev.baton.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.contract.EventResult;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A step's latency observed while its event is applied carries that trace as an exemplar. */
class StepLatencyExemplarTest {

  @RegisterExtension
  static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  @Test
  void the_step_latency_histogram_names_the_trace_of_the_step_it_measured() {
    RuntimeMetrics metrics = new RuntimeMetrics();
    Span apply = otel.getOpenTelemetry().getTracer("test").spanBuilder("apply charge success").startSpan();
    try (Scope s = apply.makeCurrent()) {
      metrics.eventApplied("shop", "order", "charge", EventResult.SUCCESS, 42);
    }
    apply.end();

    String scrape = metrics.scrape(RuntimeMetrics.OPENMETRICS);
    assertThat(scrape)
        .contains("baton_step_latency_seconds_bucket{result=\"success\",step=\"charge\",workflow=\"order\",workflow_namespace=\"shop\"")
        .contains("trace_id=\"" + apply.getSpanContext().getTraceId() + "\"");
    assertThat(metrics.scrape()).doesNotContain("trace_id");
  }
}
