package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static dev.baton.worker.TestBroker.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.EventResult;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Commands that a handler answers: success and business failure events, and duplicates answered once. */
class CommandResultsIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-results");

  record PayInput(String orderId, int amount) {}

  @Test
  void successPublishesTheEventWithCopiedHeadersThenAcks() throws Exception {
    ServiceModel model = TestBroker.commandService("payment", "pay", RetryStaircase.of(3, List.of("1s")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");

    try (BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          PayInput in = cmd.inputAs(PayInput.class);
          return CommandResult.success(Map.of("paymentId", "p-" + in.orderId(), "charged", in.amount()));
        })
        .build()) {
      worker.start();
      broker.sendCommand("payment", "pay", TestBroker.commandProperties("m-1", "i-1", "pay"),
          commandBody("i-1", "{\"orderId\":\"o-7\",\"amount\":30,\"extra\":true}"));

      GetResponse event = broker.take(events);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
      assertThat(event.getEnvelope().getExchange()).isEqualTo("payment.event.topic.ex");
      assertThat(event.getProps().getCorrelationId()).isEqualTo("i-1");
      assertThat(event.getProps().getMessageId()).isEqualTo(ResultEvents.eventMessageId("m-1", EventResult.SUCCESS));
      assertThat(event.getProps().getContentType()).isEqualTo("application/json");
      assertThat(event.getProps().getDeliveryMode()).isEqualTo(2);
      assertThat(event.getProps().getTimestamp()).isNotNull();
      assertThat(HeaderValues.plain(event.getProps().getHeaders())).containsOnlyKeys(
          "baton-workflow", "baton-revision", "baton-instance", "baton-step", "baton-attempt", "baton-entity",
          "baton-action", "baton-retries", "baton-namespace", "traceparent");
      assertThat(header(event, "baton-workflow")).isEqualTo("order-fulfilment");
      assertThat(header(event, "baton-revision")).isEqualTo("3");
      assertThat(header(event, "traceparent")).startsWith("00-0af7651916cd43dd");
      JsonNode body = json(event);
      assertThat(body.get("instanceId").asText()).isEqualTo("i-1");
      assertThat(body.get("step").asText()).isEqualTo("charge");
      assertThat(body.get("attempt").asInt()).isEqualTo(1);
      assertThat(body.get("output")).isEqualTo(Bodies.MAPPER.readTree("{\"paymentId\":\"p-o-7\",\"charged\":30}"));
      assertThat(body.has("errorCode")).isFalse();
    }
    // Closed: anything left unacked would be back in the queue now.
    assertThat(broker.count("q.payment.pay")).isZero();
    assertThat(broker.count("q.retry.payment.pay.1s")).isZero();
    assertThat(broker.count("q.dlx.payment.pay")).isZero();
    assertThat(broker.count(events)).isZero();
  }

  @Test
  void businessFailureIsAFailedEventAndIsNotRetried() throws Exception {
    ServiceModel model = TestBroker.commandService("billing", "pay", RetryStaircase.of(3, List.of("200ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    AtomicInteger calls = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          calls.incrementAndGet();
          return cmd.inputAs(PayInput.class).amount() > 1000
              ? CommandResult.failed("LIMIT", "amount over limit")
              : CommandResult.success();
        })
        .build()) {
      worker.start();
      broker.sendCommand("billing", "pay", TestBroker.commandProperties("m-2", "i-2", "pay"),
          commandBody("i-2", "{\"orderId\":\"o-8\",\"amount\":5000}"));

      GetResponse event = broker.take(events);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.failed");
      assertThat(event.getProps().getMessageId()).isEqualTo(ResultEvents.eventMessageId("m-2", EventResult.FAILED));
      JsonNode body = json(event);
      assertThat(body.get("errorCode").asText()).isEqualTo("LIMIT");
      assertThat(body.get("reason").asText()).isEqualTo("amount over limit");
      assertThat(body.get("instanceId").asText()).isEqualTo("i-2");
      assertThat(body.has("output")).isFalse();
    }
    assertThat(calls).hasValue(1);
    assertThat(broker.count("q.billing.pay")).isZero();
    assertThat(broker.count("q.retry.billing.pay.200ms")).isZero();
    assertThat(broker.count("q.dlx.billing.pay")).isZero();
    assertThat(broker.count(events)).isZero();
  }

  @Test
  void aDuplicateMessageIdRunsTheHandlerOnceAndRepublishesTheSameEvent() throws Exception {
    ServiceModel model = TestBroker.commandService("ledger", "book", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger duplicates = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model)
        .command("book", cmd -> CommandResult.success(Map.of("entry", calls.incrementAndGet())))
        .idempotency(IdempotencyStore.inMemory(100))
        .listener(new WorkerListener() {
          @Override
          public void duplicate(String consumer, String key) {
            duplicates.incrementAndGet();
          }
        })
        .build()) {
      worker.start();
      broker.sendCommand("ledger", "book", TestBroker.commandProperties("m-3", "i-3", "book"), commandBody("i-3", "{}"));
      GetResponse first = broker.take(events);
      broker.sendCommand("ledger", "book", TestBroker.commandProperties("m-3", "i-3", "book"), commandBody("i-3", "{}"));
      GetResponse second = broker.take(events);

      assertThat(calls).hasValue(1);
      assertThat(duplicates).hasValue(1);
      assertThat(second.getEnvelope().getRoutingKey()).isEqualTo(first.getEnvelope().getRoutingKey())
          .isEqualTo("order.book.success");
      assertThat(second.getProps().getMessageId()).isEqualTo(first.getProps().getMessageId());
      assertThat(json(second)).isEqualTo(json(first));
      assertThat(json(second).get("output").get("entry").asInt()).isEqualTo(1);
    }
    assertThat(broker.count("q.ledger.book")).isZero();
    assertThat(broker.count(events)).isZero();
  }
}
