package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static io.opentelemetry.api.common.AttributeKey.stringKey;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.testing.InMemoryTraces;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;

/**
 * A command's trace continues in the worker through the propagators of the OpenTelemetry given (here W3C trace
 * context and baggage): the handler runs in a {@code process} consumer span whose parent is the command's context,
 * with its baggage and the instance's log fields, and the result event carries a {@code publish} producer span under
 * it, and the baggage.
 */
class HandlerTracingIT {

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String DISPATCH_SPAN = "b7ad6b7169203331";

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-tracing");

  static final InMemorySpanExporter exported = InMemorySpanExporter.create();
  static final OpenTelemetrySdk otel = InMemoryTraces.into(exported);

  @BeforeEach
  void forget() {
    exported.reset();
  }

  @Test
  void the_handler_runs_in_a_process_span_of_the_command_and_the_event_carries_its_publish_span() throws Exception {
    ServiceModel model = TestBroker.commandService("tracing", "pay", RetryStaircase.of(3, List.of("1s")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    Map<String, String> fieldsInHandler = new ConcurrentHashMap<>();

    try (BatonWorker worker = broker.worker(model).openTelemetry(otel)
        .command("pay", cmd -> {
          fieldsInHandler.putAll(MDC.getCopyOfContextMap());
          fieldsInHandler.put("tenant", Baggage.current().getEntryValue("tenant"));
          return CommandResult.success(Map.of("paid", true));
        })
        .build()) {
      worker.start();
      broker.sendCommand("tracing", "pay", TestBroker.commandProperties("m-1", "pay", "baggage", "tenant=acme"),
          commandBody("i-m-1", "{}"));

      GetResponse event = broker.take(events);
      List<SpanData> spans = await().atMost(Duration.ofSeconds(10)).until(exported::getFinishedSpanItems,
          s -> s.size() == 2);
      SpanData handling = spans.stream().filter(s -> s.getKind() == SpanKind.CONSUMER).findFirst().orElseThrow();
      SpanData answer = spans.stream().filter(s -> s.getKind() == SpanKind.PRODUCER).findFirst().orElseThrow();
      assertThat(handling.getName()).isEqualTo("process " + t.commandExchange());
      assertThat(handling.getTraceId()).isEqualTo(TRACE_ID);
      assertThat(handling.getParentSpanId()).isEqualTo(DISPATCH_SPAN);
      assertThat(handling.getAttributes().asMap()).containsEntry(stringKey("messaging.system"), "rabbitmq")
          .containsEntry(stringKey("messaging.operation.type"), "process")
          .containsEntry(stringKey("messaging.destination.name"), t.commandExchange())
          .containsEntry(stringKey("messaging.message.id"), "m-1")
          .containsEntry(stringKey("messaging.message.conversation_id"), "i-m-1")
          .containsEntry(stringKey("baton.instance"), "i-m-1").containsEntry(stringKey("baton.step"), "charge");
      assertThat(answer.getName()).isEqualTo("publish " + t.eventExchange());
      assertThat(answer.getParentSpanId()).isEqualTo(handling.getSpanId());
      assertThat(answer.getAttributes().asMap()).containsEntry(stringKey("messaging.operation.type"), "send")
          .containsEntry(stringKey("messaging.rabbitmq.destination.routing_key"), event.getEnvelope().getRoutingKey())
          .containsEntry(stringKey("messaging.message.id"), event.getProps().getMessageId());
      assertThat(header(event, "traceparent")).isEqualTo("00-" + TRACE_ID + "-" + answer.getSpanId() + "-01");
      assertThat(header(event, "baggage")).isEqualTo("tenant=acme");
      assertThat(fieldsInHandler).containsEntry("instanceId", "i-m-1").containsEntry("workflow", "order-fulfilment")
          .containsEntry("step", "charge").containsEntry("traceId", TRACE_ID).containsEntry("tenant", "acme");
    }
  }

  @Test
  void each_delivery_up_the_retry_staircase_is_a_span_of_its_own_and_a_failure_is_marked() throws Exception {
    ServiceModel model = TestBroker.commandService("tracing-retry", "pay", RetryStaircase.of(2, List.of("200ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    AtomicInteger calls = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model).openTelemetry(otel)
        .command("pay", cmd -> {
          if (calls.incrementAndGet() == 1) {
            throw new IllegalStateException("the bank timed out");
          }
          return CommandResult.success(Map.of("paid", true));
        })
        .build()) {
      worker.start();
      broker.sendCommand("tracing-retry", "pay", TestBroker.commandProperties("m-2", "i-2", "pay"),
          commandBody("i-2", "{}"));

      broker.take(events);
      // Two deliveries, and the answer to the second.
      List<SpanData> spans = await().atMost(Duration.ofSeconds(10)).until(exported::getFinishedSpanItems,
          s -> s.size() == 3).stream().filter(s -> s.getKind() == SpanKind.CONSUMER).toList();
      assertThat(spans).hasSize(2).allSatisfy(s -> {
        assertThat(s.getTraceId()).isEqualTo(TRACE_ID);
        assertThat(s.getParentSpanId()).isEqualTo(DISPATCH_SPAN);
      });
      assertThat(spans.get(0).getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
      assertThat(spans.get(0).getEvents()).anySatisfy(e -> assertThat(e.getName()).isEqualTo("exception"));
      assertThat(spans.get(1).getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
      assertThat(spans.stream().map(s -> s.getAttributes().asMap().toString()))
          .anyMatch(a -> a.contains("baton.retries=1"));
    }
  }
}
