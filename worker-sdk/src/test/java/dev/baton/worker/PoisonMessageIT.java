package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static dev.baton.worker.TestBroker.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Messages no retry can fix park at once with a reason, and the consumer goes on with the next one. */
class PoisonMessageIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-poison");

  record Amount(int amount) {}

  /** Succeeds, remembering which messages reached it. */
  static CommandHandler recording(List<String> handled) {
    return cmd -> {
      handled.add(cmd.messageId());
      return CommandResult.success();
    };
  }

  @Test
  void malformedJsonParksWithAReasonAndAnErrorEventThenTheNextMessageIsHandled() throws Exception {
    ServiceModel model = TestBroker.commandService("payment", "pay", RetryStaircase.of(3, List.of("200ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    List<String> handled = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .command("pay", recording(handled))
        .build()) {
      worker.start();
      broker.sendCommand("payment", "pay", "bad", "{\"instanceId\": \"i-bad\", oops");
      broker.sendCommand("payment", "pay", "good", commandBody("i-good", "{}"));

      GetResponse parked = broker.take("q.dlx.payment.pay");
      assertThat(parked.getProps().getMessageId()).isEqualTo("bad");
      assertThat(header(parked, "x-exception-message")).startsWith("body is not JSON");
      assertThat(header(parked, "x-exception-type")).isEqualTo(UnprocessableMessageException.class.getName());
      assertThat(header(parked, "x-original-routing-key")).isEqualTo("service.payment.pay");
      assertThat(header(parked, "baton-retries")).isEqualTo("0");

      List<GetResponse> published = broker.take(events, 2);
      GetResponse error = published.get(0);
      assertThat(error.getEnvelope().getRoutingKey()).isEqualTo("order.pay.error");
      // The body could not be read: the ids come from the headers.
      assertThat(json(error).get("instanceId").asText()).isEqualTo("i-bad");
      assertThat(json(error).get("reason").asText()).startsWith("body is not JSON");
      assertThat(published.get(1).getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
    }
    assertThat(handled).containsExactly("good");
    assertThat(broker.count("q.payment.pay")).isZero();
    assertThat(broker.count("q.retry.payment.pay.200ms")).isZero();
  }

  @Test
  void missingEntityOrActionParksWithoutAnEvent() throws Exception {
    ServiceModel model = TestBroker.commandService("stock", "reserve", RetryStaircase.of(3, List.of("200ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    List<String> handled = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .command("reserve", recording(handled))
        .build()) {
      worker.start();
      Map<String, Object> headers = TestBroker.commandHeaders("i-x", "reserve");
      headers.remove("baton-entity");
      broker.sendCommand("stock", "reserve",
          new AMQP.BasicProperties.Builder().messageId("headless").deliveryMode(2).headers(headers).build(),
          commandBody("i-x", "{}"));
      broker.sendCommand("stock", "reserve", "good", commandBody("i-good", "{}"));

      GetResponse parked = broker.take("q.dlx.stock.reserve");
      assertThat(parked.getProps().getMessageId()).isEqualTo("headless");
      assertThat(header(parked, "x-exception-message")).contains("baton-entity");
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.reserve.success");
    }
    assertThat(handled).containsExactly("good");
    assertThat(broker.count(events)).isZero();
    assertThat(broker.count("q.stock.reserve")).isZero();
  }

  @Test
  void inputThatDoesNotFitTheHandlersTypeParksWithoutRetries() throws Exception {
    ServiceModel model = TestBroker.commandService("ship", "ship", RetryStaircase.of(3, List.of("200ms")));
    ServiceTopology t = broker.declare(model);
    String events = broker.probe(t.eventExchange(), "#");
    List<Integer> retriesSeen = new CopyOnWriteArrayList<>();

    try (BatonWorker worker = broker.worker(model)
        .command("ship", cmd -> {
          retriesSeen.add(cmd.retries());
          return CommandResult.success(cmd.inputAs(Amount.class));
        })
        .build()) {
      worker.start();
      broker.sendCommand("ship", "ship", "m-1", commandBody("i-1", "{\"amount\":\"lots\"}"));

      GetResponse parked = broker.take("q.dlx.ship.ship");
      assertThat(header(parked, "x-exception-message")).startsWith("cannot read Amount");
      assertThat(header(parked, "x-exception-message")).doesNotContain("lots");
      assertThat(broker.take(events).getEnvelope().getRoutingKey()).isEqualTo("order.ship.error");
    }
    assertThat(retriesSeen).containsExactly(0);
  }
}
