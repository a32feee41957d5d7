package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.junit5.OpenTelemetryExtension;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.MDC;

/**
 * A command's trace continues in the worker: the handler runs in a consumer span whose parent is the command's
 * {@code traceparent}, with the instance's log fields, and the result event's {@code traceparent} names that span.
 */
class HandlerTracingIT {

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String DISPATCH_SPAN = "b7ad6b7169203331";

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-tracing");

  @RegisterExtension
  static final OpenTelemetryExtension otel = OpenTelemetryExtension.create();

  @Test
  void the_handler_runs_in_a_child_span_of_the_command_and_the_event_carries_that_span() throws Exception {
    ServiceModel model = TestBroker.commandService("tracing", "pay", RetryStaircase.of(3, List.of("1s")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    Map<String, String> fieldsInHandler = new ConcurrentHashMap<>();

    try (BatonWorker worker = broker.worker(model).openTelemetry(otel.getOpenTelemetry())
        .command("pay", cmd -> {
          fieldsInHandler.putAll(MDC.getCopyOfContextMap());
          return CommandResult.success(Map.of("paid", true));
        })
        .build()) {
      worker.start();
      broker.sendCommand("tracing", "pay", TestBroker.commandProperties("m-1", "i-1", "pay"),
          commandBody("i-1", "{}"));

      GetResponse event = broker.take(events);
      SpanData handling = await().atMost(Duration.ofSeconds(10)).until(otel::getSpans, s -> s.size() == 1).get(0);
      assertThat(handling.getName()).isEqualTo("tracing pay");
      assertThat(handling.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(handling.getTraceId()).isEqualTo(TRACE_ID);
      assertThat(handling.getParentSpanId()).isEqualTo(DISPATCH_SPAN);
      assertThat(handling.getAttributes().asMap().toString()).contains("baton.instance=i-1", "baton.step=charge");
      assertThat(header(event, "traceparent"))
          .isEqualTo("00-" + TRACE_ID + "-" + handling.getSpanId() + "-01");
      assertThat(fieldsInHandler).containsEntry("instanceId", "i-1").containsEntry("workflow", "order-fulfilment")
          .containsEntry("step", "charge").containsEntry("traceId", TRACE_ID);
    }
  }

  @Test
  void each_delivery_up_the_retry_staircase_is_a_span_of_its_own_and_a_failure_is_marked() throws Exception {
    ServiceModel model = TestBroker.commandService("tracing-retry", "pay", RetryStaircase.of(2, List.of("200ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    AtomicInteger calls = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model).openTelemetry(otel.getOpenTelemetry())
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
      List<SpanData> spans = await().atMost(Duration.ofSeconds(10)).until(otel::getSpans, s -> s.size() == 2);
      assertThat(spans).allSatisfy(s -> {
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
