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
 * broker: each instance is one trace whose spans chain the start request, every dispatch, the worker's handling, the
 * event applied and the next dispatch, compensations and the worker's retries included (docs/design.md#observability).
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

    List<String> chain = List.of("start default/order-fulfilment", "dispatch reserve-stock", "inventory reserve",
        "apply reserve-stock success reserve", "dispatch charge", "payment pay", "apply charge failed pay",
        "dispatch reserve-stock/compensate", "inventory release", "apply reserve-stock success release");
    Map<String, SpanData> spans = awaitTrace(traceId, chain);

    assertThat(spans.keySet()).containsExactlyInAnyOrderElementsOf(chain);
    assertChain(spans, chain);
    assertThat(spans.get("start default/order-fulfilment").getParentSpanContext().isValid()).isFalse();
    assertThat(spans.get("apply reserve-stock success release").getEvents())
        .anySatisfy(e -> assertThat(e.getName()).isEqualTo("finished COMPENSATED"));
  }

  @Test
  void a_good_order_whose_carrier_fails_once_is_one_trace_with_the_retry_as_a_sibling() throws Exception {
    String id = saga.startOrder("trace-ok-" + UUID.randomUUID(), Map.of("sku", "book", "quantity", 1,
        "flakyShipping", 1));
    String traceId = saga.awaitStatus(id, "SUCCEEDED", Duration.ofSeconds(30)).path("traceId").asText();

    List<String> chain = List.of("start default/order-fulfilment", "dispatch reserve-stock", "inventory reserve",
        "apply reserve-stock success reserve", "dispatch charge", "payment pay", "apply charge success pay",
        "dispatch ship", "shipping ship retry 1", "apply ship success ship");
    Map<String, SpanData> spans = awaitTrace(traceId, chain);

    assertThat(spans.keySet()).containsExactlyInAnyOrderElementsOf(
        java.util.stream.Stream.concat(chain.stream(), java.util.stream.Stream.of("shipping ship")).toList());
    assertChain(spans, chain);
    // The first delivery failed (the simulated carrier): a sibling of the retry that succeeded, marked as an error.
    assertThat(spans.get("shipping ship").getParentSpanId()).isEqualTo(spans.get("dispatch ship").getSpanId());
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

  /** An apply span with its action ({@code apply reserve-stock success release}); a worker's retry with its number. */
  private static String nameOf(SpanData span) {
    String action = span.getAttributes().get(AttributeKey.stringKey("baton.action"));
    Long retries = span.getAttributes().get(AttributeKey.longKey("baton.retries"));
    if (span.getName().startsWith("apply ")) {
      return span.getName() + " " + action;
    }
    return retries != null && retries > 0 ? span.getName() + " retry " + retries : span.getName();
  }

  /** Each span's parent is the one before it. */
  private static void assertChain(Map<String, SpanData> spans, List<String> names) {
    for (int i = 1; i < names.size(); i++) {
      assertThat(spans.get(names.get(i)).getParentSpanId()).as("parent of %s", names.get(i))
          .isEqualTo(spans.get(names.get(i - 1)).getSpanId());
    }
  }
}
