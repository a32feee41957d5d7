package dev.baton.runtime.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.messaging.tracing.MessagingSpans;
import dev.baton.testing.InMemoryTraces;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.extension.trace.propagation.B3Propagator;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How an instance's spans hang together, with the SDK's in-memory exporter and OpenTelemetry's default propagators
 * (W3C trace context and baggage).
 */
class InstanceTracingTest {

  private static final String CALLER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  private static final String EXCHANGE = "inventory.command.topic.ex";
  private static final MessagingSpans.Message RESERVE = new MessagingSpans.Message(EXCHANGE,
      "inventory.command.reserve", "m-1", "i-1", 42);

  private final InMemorySpanExporter exported = InMemorySpanExporter.create();
  private final OpenTelemetrySdk otel = InMemoryTraces.into(exported);
  private final InstanceTracing tracing = new InstanceTracing(otel);
  private final PublishTracing publishing = new PublishTracing(otel);

  @Test
  void a_start_continues_the_callers_trace_and_its_first_dispatch_is_a_create_span_under_it() {
    Context start = tracing.startRequest(Map.of("traceparent", CALLER, "baggage", "tenant=acme"), "default", "order");
    String stored = InstanceTracing.traceparentOf(Span.fromContext(start));
    Map<String, String> command;
    try (Scope s = start.makeCurrent()) {
      command = tracing.dispatch(stored, RESERVE, "i-1", "order", "reserve", 1, "reserve");
    }
    Span.fromContext(start).end();

    SpanData startSpan = span("start default/order");
    SpanData create = span("create " + EXCHANGE);
    assertThat(startSpan.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
    assertThat(startSpan.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(create.getParentSpanId()).isEqualTo(startSpan.getSpanId());
    assertThat(create.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(create.getAttributes().asMap()).containsEntry(MessagingSpans.SYSTEM, "rabbitmq")
        .containsEntry(MessagingSpans.OPERATION_TYPE, "create")
        .containsEntry(MessagingSpans.DESTINATION, EXCHANGE)
        .containsEntry(MessagingSpans.ROUTING_KEY, "inventory.command.reserve")
        .containsEntry(MessagingSpans.MESSAGE_ID, "m-1")
        .containsEntry(MessagingSpans.CONVERSATION_ID, "i-1")
        .containsEntry(MessagingSpans.BODY_SIZE, 42L)
        .containsEntry(AttributeKey.stringKey("baton.step"), "reserve");
    assertThat(command).containsEntry("traceparent", "00-" + create.getTraceId() + "-" + create.getSpanId() + "-01")
        .containsEntry("baggage", "tenant=acme");
    assertThat(MessageTracing.traceIdOf(stored)).isEqualTo("0af7651916cd43dd8448eb211c80319c");
  }

  @Test
  void the_relay_publishes_under_the_create_span_and_the_command_then_names_the_publish() {
    Map<String, Object> headers = new HashMap<>(tracing.dispatch(CALLER, RESERVE, "i-1", "order", "reserve", 1,
        "reserve"));
    headers.put("baton-step", "reserve");
    headers.put("baggage", "tenant=acme");

    publishing.publishing(RESERVE, headers).end();

    SpanData create = span("create " + EXCHANGE);
    SpanData publish = span("publish " + EXCHANGE);
    assertThat(publish.getParentSpanId()).isEqualTo(create.getSpanId());
    assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
    assertThat(publish.getAttributes().asMap()).containsEntry(MessagingSpans.OPERATION_TYPE, "send")
        .containsEntry(MessagingSpans.OPERATION_NAME, "publish")
        .containsEntry(MessagingSpans.DESTINATION, EXCHANGE)
        .containsEntry(AttributeKey.stringKey("baton.step"), "reserve");
    assertThat(headers).containsEntry("traceparent", "00-" + publish.getTraceId() + "-" + publish.getSpanId() + "-01")
        .containsEntry("baggage", "tenant=acme").containsEntry("baton-step", "reserve");
  }

  @Test
  void under_other_propagators_an_outcome_is_published_under_the_instances_stored_traceparent() {
    OpenTelemetrySdk b3 = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exported)).build())
        .setPropagators(ContextPropagators.create(B3Propagator.injectingMultiHeaders()))
        .build();
    Map<String, Object> headers = new HashMap<>(Map.of("traceparent", CALLER));

    new PublishTracing(b3).publishing(new MessagingSpans.Message("baton.instance.topic.ex",
        "default.order.succeeded", "o-1", "i-1", 2), headers).end();

    SpanData publish = span("publish baton.instance.topic.ex");
    assertThat(publish.getParentSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(headers).containsEntry("X-B3-SpanId", publish.getSpanId());
  }

  @Test
  void applying_an_event_is_a_process_span_under_the_workers_and_the_next_dispatch_keeps_its_baggage() {
    String worker = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
    Context apply = tracing.applying(Map.of("traceparent", worker, "baggage", "tenant=acme"),
        new MessagingSpans.Message("inventory.event.topic.ex", null, "e-1", "i-1", -1), CALLER, "i-1", "reserve",
        "reserve", "success");
    Map<String, String> next;
    try (Scope s = apply.makeCurrent()) {
      next = tracing.dispatch(CALLER, RESERVE, "i-1", "order", "charge", 1, "charge");
    }
    Span.fromContext(apply).end();

    SpanData process = span("process inventory.event.topic.ex");
    assertThat(process.getParentSpanId()).isEqualTo("00f067aa0ba902b7");
    assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
    assertThat(process.getAttributes().asMap()).containsEntry(MessagingSpans.OPERATION_TYPE, "process")
        .containsEntry(MessagingSpans.MESSAGE_ID, "e-1")
        .containsEntry(AttributeKey.stringKey("baton.result"), "success");
    assertThat(span("create " + EXCHANGE).getParentSpanId()).isEqualTo(process.getSpanId());
    assertThat(next).containsEntry("baggage", "tenant=acme");
  }

  @Test
  void work_no_event_carries_continues_the_instances_stored_trace() {
    Span timeout = tracing.instanceWork("timeout charge", CALLER, "i-1");
    try (Scope s = timeout.makeCurrent()) {
      tracing.dispatch(CALLER, RESERVE, "i-1", "order", "reserve/compensate", 1, "release");
    }
    timeout.end();
    Span.fromContext(tracing.applying(Map.of(), new MessagingSpans.Message("inventory.event.topic.ex", null, "e-2",
        "i-1", -1), CALLER, "i-1", "charge", "charge", "success")).end();

    assertThat(span("timeout charge").getParentSpanId()).isEqualTo("b7ad6b7169203331");
    assertThat(span("create " + EXCHANGE).getParentSpanId()).isEqualTo(span("timeout charge").getSpanId());
    assertThat(span("process inventory.event.topic.ex").getParentSpanId()).isEqualTo("b7ad6b7169203331");
  }

  @Test
  void without_a_trace_anywhere_a_dispatch_starts_a_new_one() {
    Map<String, String> command = tracing.dispatch(null, RESERVE, "i-1", "order", "reserve", 1, "reserve");

    assertThat(span("create " + EXCHANGE).getParentSpanContext().isValid()).isFalse();
    assertThat(command).containsKey("traceparent").doesNotContainKey("baggage");
  }

  private SpanData span(String name) {
    return exported.getFinishedSpanItems().stream().filter(s -> s.getName().equals(name)).findFirst().orElseThrow();
  }
}
