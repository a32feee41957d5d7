package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The README's order saga ({@code examples/order-saga/}) in {@code baton dev} with the example workers, over the real
 * broker: each instance is one trace whose spans chain the start request, every dispatch ({@code create}), the relay's
 * publish, the worker's handling and its answer, the event applied and the next dispatch, compensations and the
 * worker's retries included (docs/design.md#observability). Spans are named here by what they are about (see {@link
 * #nameOf}).
 */
@ExtendWith(SagaStack.Resolver.class)
class OrderSagaTraceIT {

  private static SagaStack saga;

  @BeforeAll
  static void stack(SagaStack s) {
    saga = s;
  }

  @Test
  void a_refused_payment_is_one_trace_from_the_start_through_the_compensation() throws Exception {
    String id = saga.startOrder("trace-declined-" + UUID.randomUUID(), Map.of("sku", "mug", "quantity", 1,
        "card", "declined"));
    String traceId = saga.awaitStatus(id, "COMPENSATED", Duration.ofSeconds(30)).path("traceId").asText();

    List<String> chain = List.of("start default/order-fulfilment",
        "create reserve-stock", "send service.inventory.reserve", "inventory reserve", "answer reserve.success",
        "apply reserve-stock success reserve",
        "create charge", "send service.payment.pay", "payment pay", "answer pay.failed", "apply charge failed pay",
        "create reserve-stock/compensate", "send service.inventory.release", "inventory release",
        "answer release.success", "apply reserve-stock success release");
    Map<String, SpanData> spans = awaitTrace(traceId, chain);

    // The instance's outcome event goes out under the span that started it.
    assertThat(spans.keySet()).containsExactlyInAnyOrderElementsOf(java.util.stream.Stream.concat(chain.stream(),
        java.util.stream.Stream.of("send default.order-fulfilment.compensated")).toList());
    assertChain(spans, chain);
    assertThat(spans.get("send default.order-fulfilment.compensated").getParentSpanId())
        .isEqualTo(spans.get("start default/order-fulfilment").getSpanId());
    assertThat(spans.get("start default/order-fulfilment").getParentSpanContext().isValid()).isFalse();
    assertThat(spans.get("apply reserve-stock success release").getEvents())
        .anySatisfy(e -> assertThat(e.getName()).isEqualTo("finished COMPENSATED"));
  }

  @Test
  void a_good_order_whose_carrier_fails_once_is_one_trace_with_the_retry_as_a_sibling() throws Exception {
    String id = saga.startOrder("trace-ok-" + UUID.randomUUID(), Map.of("sku", "book", "quantity", 1,
        "flakyShipping", 1));
    String traceId = saga.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30)).path("traceId").asText();

    List<String> chain = List.of("start default/order-fulfilment",
        "create reserve-stock", "send service.inventory.reserve", "inventory reserve", "answer reserve.success",
        "apply reserve-stock success reserve",
        "create charge", "send service.payment.pay", "payment pay", "answer pay.success", "apply charge success pay",
        "create ship", "send service.shipping.ship", "shipping ship retry 1", "answer ship.success",
        "apply ship success ship");
    Map<String, SpanData> spans = awaitTrace(traceId, chain);

    assertThat(spans.keySet()).containsExactlyInAnyOrderElementsOf(
        java.util.stream.Stream.concat(chain.stream(), java.util.stream.Stream.of("shipping ship",
            "send default.order-fulfilment.succeeded")).toList());
    assertChain(spans, chain);
    // The first delivery failed (the simulated carrier): a sibling of the retry that succeeded, marked as an error.
    assertThat(spans.get("shipping ship").getParentSpanId())
        .isEqualTo(spans.get("send service.shipping.ship").getSpanId());
    assertThat(spans.get("shipping ship").getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(spans.get("apply ship success ship").getEvents())
        .anySatisfy(e -> assertThat(e.getName()).isEqualTo("finished SUCCEEDED"));
  }

  /** The spans of one trace by {@link #nameOf}, once all those named have ended. */
  private static Map<String, SpanData> awaitTrace(String traceId, List<String> names) {
    assertThat(traceId).hasSize(32);
    Map<String, SpanData> spans = await("the spans of trace " + traceId).atMost(Duration.ofSeconds(20))
        .until(() -> saga.spans.getFinishedSpanItems().stream().filter(s -> s.getTraceId().equals(traceId))
            .collect(Collectors.toMap(OrderSagaTraceIT::nameOf, s -> s, (a, b) -> {
              throw new AssertionError("two spans named " + nameOf(a) + " in trace " + traceId);
            })), byName -> byName.keySet().containsAll(names));
    System.out.println("trace " + traceId + ":");
    spans.values().stream().sorted(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos))
        .forEach(s -> System.out.println("  " + nameOf(s) + " [" + s.getKind() + "] " + s.getSpanId() + " parent "
            + s.getParentSpanId()));
    return spans;
  }

  /**
   * {@code create <step>} (a dispatch), {@code send <routing key>} (the relay's publish), {@code <service> <command>}
   * (the worker's handling, {@code retry <n>} after it for a retry), {@code answer <action>.<result>} (the worker's
   * publish of its event), {@code apply <step> <result> <action>} (the runtime's processing of the event).
   */
  private static String nameOf(SpanData span) {
    String operation = span.getAttributes().get(AttributeKey.stringKey("messaging.operation.name"));
    boolean byWorker = span.getInstrumentationScopeInfo().getName().equals("dev.baton.worker");
    String routingKey = span.getAttributes().get(AttributeKey.stringKey("messaging.rabbitmq.destination.routing_key"));
    String step = span.getAttributes().get(AttributeKey.stringKey("baton.step"));
    if (operation == null) {
      return span.getName();
    }
    if (operation.equals("create")) {
      return "create " + step;
    }
    if (operation.equals("publish")) {
      return byWorker ? "answer " + routingKey.substring(routingKey.indexOf('.') + 1) : "send " + routingKey;
    }
    if (!byWorker) {
      return "apply " + step + " " + span.getAttributes().get(AttributeKey.stringKey("baton.result")) + " "
          + span.getAttributes().get(AttributeKey.stringKey("baton.action"));
    }
    Long retries = span.getAttributes().get(AttributeKey.longKey("baton.retries"));
    String handling = span.getAttributes().get(AttributeKey.stringKey("baton.service")) + " "
        + span.getAttributes().get(AttributeKey.stringKey("baton.command"));
    return retries != null && retries > 0 ? handling + " retry " + retries : handling;
  }

  /** Each span's parent is the one before it. */
  private static void assertChain(Map<String, SpanData> spans, List<String> names) {
    for (int i = 1; i < names.size(); i++) {
      assertThat(spans.get(names.get(i)).getParentSpanId()).as("parent of %s", names.get(i))
          .isEqualTo(spans.get(names.get(i - 1)).getSpanId());
    }
  }
}
