package dev.baton.runtime.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import dev.baton.contract.EventResult;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What the step loop accepts as an event (docs/design.md#message-contract), and the reason it gives for what it does not. */
class EventParserTest {

  static final UUID INSTANCE = UUID.randomUUID();

  static Map<String, Object> headers() {
    Map<String, Object> h = new HashMap<>();
    h.put("baton-workflow", "orders");
    h.put("baton-namespace", "shop");
    h.put("baton-instance", INSTANCE.toString());
    h.put("baton-step", "charge");
    h.put("baton-attempt", 2);
    h.put("baton-action", "pay");
    return h;
  }

  static ParsedDelivery parse(String routingKey, Consumer<Map<String, Object>> edit, String messageId, String body) {
    Map<String, Object> h = headers();
    edit.accept(h);
    AMQP.BasicProperties props = new AMQP.BasicProperties.Builder().messageId(messageId)
        .correlationId(INSTANCE.toString()).headers(h).build();
    return EventParser.parse("orders", "orders.event.topic.ex", routingKey, props,
        body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aWellFormedSuccess() {
    ParsedDelivery p = parse("order.pay.success", h -> {}, "m-1", "{\"output\": {\"paid\": 12}}");
    assertThat(p).isInstanceOf(ParsedDelivery.Event.class);
    var e = ((ParsedDelivery.Event) p).event();
    assertThat(e.instanceId()).isEqualTo(INSTANCE);
    assertThat(e.result()).isEqualTo(EventResult.SUCCESS);
    assertThat(e.attempt()).isEqualTo(2);
    assertThat(e.namespace()).isEqualTo("shop");
    assertThat(e.output().get("paid").asInt()).isEqualTo(12);
  }

  @Test
  void aFailureWithItsReasonAndTheInstanceFromTheCorrelationId() {
    ParsedDelivery p = parse("order.pay.failed", h -> {
      h.remove("baton-instance");
      h.put("baton-attempt", "2"); // text from a client that sends every header as a string
    }, "m-2", "{\"errorCode\": \"DECLINED\", \"reason\": \"card declined\"}");
    var e = ((ParsedDelivery.Event) p).event();
    assertThat(e.instanceId()).isEqualTo(INSTANCE);
    assertThat(e.result()).isEqualTo(EventResult.FAILED);
    assertThat(e.errorCode()).isEqualTo("DECLINED");
    assertThat(e.reason()).isEqualTo("card declined");
    assertThat(e.output()).isNull();
  }

  /** Fails on the code before: the output reached the database, which refused it, and the event was parked for ever. */
  @Test
  void anAnswerPostgresCannotStoreEndsTheStepInErrorWithTheReason() {
    ParsedDelivery p = parse("order.pay.success", h -> {}, "m-nul", "{\"output\": {\"memo\": [\"a\\u0000b\"]}}");
    var e = ((ParsedDelivery.Event) p).event();
    assertThat(e.result()).isEqualTo(EventResult.ERROR);
    assertThat(e.output()).isNull();
    assertThat(e.errorCode()).isEqualTo("UnstorableOutput");
    assertThat(e.reason()).contains("NUL").contains("output");

    var reason = ((ParsedDelivery.Event) parse("order.pay.failed", h -> {}, "m-nul2",
        "{\"errorCode\": \"X\", \"reason\": \"bad\\u0000\"}")).event();
    assertThat(reason.errorCode()).isEqualTo("UnstorableOutput");
    assertThat(reason.reason()).contains("reason");
  }

  @Test
  void anExpiredAnswerSaysTheCommandWasNotExecuted() {
    var e = ((ParsedDelivery.Event) parse("order.pay.expired", h -> {}, "m-exp",
        "{\"reason\": \"the deadline had passed 300 ms before\"}")).event();
    assertThat(e.result()).isEqualTo(EventResult.EXPIRED);
    assertThat(e.reason()).contains("deadline");
  }

  @Test
  void anotherWorkflowsEventIsForeign() {
    assertThat(parse("order.pay.success", h -> h.put("baton-workflow", "refunds"), "m", "{}"))
        .isEqualTo(new ParsedDelivery.Foreign("refunds"));
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> {}, "m", "{oops", "body is not JSON"),
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> {}, "m", "[1]", "not a JSON object"),
        Arguments.of("order.pay.done", (Consumer<Map<String, Object>>) h -> {}, "m", "{}", "does not end in success"),
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> {}, null, "{}", "message_id is missing"),
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> h.remove("baton-workflow"), "m", "{}",
            "baton-workflow is missing"),
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> h.put("baton-instance", "42"), "m", "{}",
            "is not a UUID"),
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> h.remove("baton-step"), "m", "{}",
            "baton-step is missing"),
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> h.remove("baton-action"), "m", "{}",
            "baton-action is missing"),
        Arguments.of("order.pay.success", (Consumer<Map<String, Object>>) h -> h.put("baton-attempt", "first"), "m",
            "{}", "baton-attempt is missing or not a number"));
  }

  @ParameterizedTest(name = "{4}")
  @MethodSource("malformed")
  void malformedEventsSayWhy(String key, Consumer<Map<String, Object>> edit, String messageId, String body,
      String reason) {
    ParsedDelivery p = parse(key, edit, messageId, body);
    assertThat(p).isInstanceOf(ParsedDelivery.Malformed.class);
    assertThat(((ParsedDelivery.Malformed) p).reason()).contains(reason);
  }
}
