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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Technical failures climb the staircase through the retry exchange, then park with an error event. */
class RetryStaircaseIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-retry");

  /** When the handler saw the command, and with which baton-retries. */
  record Seen(long nanos, int retries) {}

  @Test
  void aHandlerThatAlwaysThrowsIsRetriedOnTheStaircaseThenDeadLettered() throws Exception {
    ServiceModel model = TestBroker.commandService("payment", "pay", RetryStaircase.of(3, List.of("200ms", "400ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    List<Seen> seen = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          seen.add(new Seen(System.nanoTime(), cmd.retries()));
          throw new IllegalStateException("gateway timeout");
        })
        .build()) {
      worker.start();
      broker.sendCommand("payment", "pay", "m-1", commandBody("i-1", "{\"amount\":10}"));

      GetResponse parked = broker.take("q.dlx.payment.pay");
      assertThat(parked.getProps().getMessageId()).isEqualTo("m-1");
      assertThat(new String(parked.getBody())).isEqualTo(commandBody("i-1", "{\"amount\":10}"));
      assertThat(header(parked, "x-exception-message")).isEqualTo("gateway timeout");
      assertThat(header(parked, "x-exception-type")).isEqualTo("java.lang.IllegalStateException");
      assertThat(header(parked, "x-original-routing-key")).isEqualTo("service.payment.pay");
      assertThat(header(parked, "x-original-exchange")).isEqualTo("payment.command.topic.ex");
      assertThat(header(parked, "baton-retries")).isEqualTo("2");
      assertThat(header(parked, "baton-instance")).isEqualTo("i-m-1");

      GetResponse error = broker.take(events);
      assertThat(error.getEnvelope().getRoutingKey()).isEqualTo("order.pay.error");
      assertThat(error.getProps().getMessageId()).isEqualTo(ResultEvents.eventMessageId("m-1", EventResult.ERROR));
      JsonNode body = json(error);
      assertThat(body.get("errorCode").asText()).isEqualTo("java.lang.IllegalStateException");
      assertThat(body.get("reason").asText()).isEqualTo("gateway timeout");
      assertThat(body.get("instanceId").asText()).isEqualTo("i-1");
    }
    assertThat(seen).extracting(Seen::retries).containsExactly(0, 1, 2);
    // Each retry waited out its tier's TTL (the broker's millisecond clock may round a little).
    assertThat(gap(seen, 0)).isGreaterThanOrEqualTo(Duration.ofMillis(195));
    assertThat(gap(seen, 1)).isGreaterThanOrEqualTo(Duration.ofMillis(395));
    assertThat(broker.count("q.payment.pay")).isZero();
    assertThat(broker.count("q.retry.payment.pay.200ms")).isZero();
    assertThat(broker.count("q.retry.payment.pay.400ms")).isZero();
    assertThat(broker.count("q.dlx.payment.pay")).isZero();
    assertThat(broker.count(events)).isZero();
  }

  @Test
  void aHandlerThatFailsOnceSucceedsOnTheFirstRetry() throws Exception {
    ServiceModel model = TestBroker.commandService("stock", "reserve", RetryStaircase.of(3, List.of("200ms", "400ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    List<Seen> seen = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .command("reserve", cmd -> {
          seen.add(new Seen(System.nanoTime(), cmd.retries()));
          if (cmd.retries() == 0) {
            throw new java.io.IOException("connection reset");
          }
          return CommandResult.success(java.util.Map.of("reserved", true));
        })
        .build()) {
      worker.start();
      broker.sendCommand("stock", "reserve", "m-2", commandBody("i-2", "{}"));

      GetResponse event = broker.take(events);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.reserve.success");
      assertThat(header(event, "baton-retries")).isEqualTo("1");
      assertThat(json(event).get("output").get("reserved").asBoolean()).isTrue();
    }
    assertThat(seen).extracting(Seen::retries).containsExactly(0, 1);
    assertThat(gap(seen, 0)).isGreaterThanOrEqualTo(Duration.ofMillis(195));
    assertThat(broker.count("q.dlx.stock.reserve")).isZero();
    assertThat(broker.count("q.stock.reserve")).isZero();
    assertThat(broker.count(events)).isZero();
  }

  @Test
  void withoutARetryPolicyTheFirstFailureParks() throws Exception {
    ServiceModel model = TestBroker.commandService("mail", "send", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");

    try (BatonWorker worker = broker.worker(model)
        .command("send", cmd -> {
          throw new UnsupportedOperationException();
        })
        .build()) {
      worker.start();
      broker.sendCommand("mail", "send", "m-3", commandBody("i-3", "{}"));

      GetResponse parked = broker.take("q.dlx.mail.send");
      assertThat(header(parked, "baton-retries")).isEqualTo("0");
      // No message: the type stands in, so the reason is never empty.
      assertThat(header(parked, "x-exception-message")).isEqualTo("UnsupportedOperationException");
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.send.error");
    }
  }

  @Test
  void aRetryTheBrokerCannotRouteIsNotLost() throws Exception {
    ServiceModel model = TestBroker.commandService("drift", "go", RetryStaircase.of(2, List.of("200ms")));
    broker.declare(model);
    // Topology drift: the tier exists but the retry exchange no longer routes to it by its name.
    broker.unbind("q.retry.drift.go.200ms", "drift.retry.direct.ex", "q.retry.drift.go.200ms");
    List<Seen> seen = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .command("go", cmd -> {
          seen.add(new Seen(System.nanoTime(), cmd.retries()));
          throw new IllegalStateException("down");
        })
        .build()) {
      worker.start();
      broker.sendCommand("drift", "go", "m-4", commandBody("i-4", "{}"));
      // The returned retry rejects the delivery to the queue's own dead-letter path (the first tier, bound by the
      // queue's name), from which it comes back: slowly, and still there.
      org.awaitility.Awaitility.await().atMost(TestBroker.WAIT).until(() -> seen.size() >= 2);
    }
    assertThat(seen.get(1).retries()).isZero();
    assertThat(gap(seen, 0)).isGreaterThanOrEqualTo(Duration.ofMillis(195));
    assertThat(broker.count("q.drift.go") + broker.count("q.retry.drift.go.200ms")).isEqualTo(1);
  }

  private static Duration gap(List<Seen> seen, int i) {
    return Duration.ofNanos(seen.get(i + 1).nanos() - seen.get(i).nanos());
  }
}
