package dev.baton.runtime.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.messaging.tracing.MessageTracing;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How an instance's spans hang together, with the SDK's in-memory exporter. */
class InstanceTracingTest {

  private static final String CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @RegisterExtension
  static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  private final InstanceTracing tracing = new InstanceTracing(otel.getOpenTelemetry());

  @Test
  void a_start_continues_the_callers_trace_and_its_first_dispatch_is_its_child() {
    Span start = tracing.startRequest(Map.of("traceparent", CALLER), "default", "order");
    String stored = InstanceTracing.traceparentOf(start);
    Map<String, String> command;
    try (Scope s = start.makeCurrent()) {
      command = tracing.dispatch(stored, "i-1", "order", "reserve", 1, "reserve");
    }
    start.end();

    SpanData startSpan = span("start default/order");
    SpanData dispatch = span("dispatch reserve");
    assertThat(startSpan.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(startSpan.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(dispatch.getParentSpanId()).isEqualTo(startSpan.getSpanId());
    assertThat(command.get("traceparent")).isEqualTo("00-" + dispatch.getTraceId() + "-" + dispatch.getSpanId() + "-01");
    assertThat(MessageTracing.traceIdOf(stored)).isEqualTo("0af7651916cd43dd8448eb211c80319c");
  }

  @Test
  void applying_an_event_hangs_under_the_workers_span_and_the_next_dispatch_under_it() {
    String worker = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
    Span apply = tracing.applying(Map.of("traceparent", worker), CALLER, "i-1", "reserve", "reserve", "success");
    try (Scope s = apply.makeCurrent()) {
      tracing.dispatch(CALLER, "i-1", "order", "charge", 1, "charge");
    }
    apply.end();

    assertThat(span("apply reserve success").getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(span("dispatch charge").getParentSpanId()).isEqualTo(span("apply reserve success").getSpanId());
  }

  @Test
  void work_no_event_carries_continues_the_instances_stored_trace() {
    Span timeout = tracing.instanceWork("timeout charge", CALLER, "i-1");
    try (Scope s = timeout.makeCurrent()) {
      tracing.dispatch(CALLER, "i-1", "order", "reserve/compensate", 1, "release");
    }
    timeout.end();
    tracing.applying(Map.of(), CALLER, "i-1", "charge", "charge", "success").end();

    assertThat(span("timeout charge").getParentSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(span("dispatch reserve/compensate").getParentSpanId()).isEqualTo(span("timeout charge").getSpanId());
    assertThat(span("apply charge success").getParentSpanId()).isEqualTo("b7ad6b7169203331");
  }

  @Test
  void without_a_trace_anywhere_a_dispatch_starts_a_new_one() {
    Map<String, String> command = tracing.dispatch(null, "i-1", "order", "reserve", 1, "reserve");

    assertThat(span("dispatch reserve").getParentSpanContext().isValid()).isFalse();
    assertThat(command).containsKey("traceparent");
  }

  private static SpanData span(String name) {
    return otel.getSpans().stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
  }
}
