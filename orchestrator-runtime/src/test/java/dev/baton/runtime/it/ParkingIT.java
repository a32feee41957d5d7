package dev.baton.runtime.it;

import static dev.baton.runtime.it.RuntimeHarness.spec;
import static dev.baton.runtime.it.RuntimeHarness.step;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import dev.baton.contract.Names;
import dev.baton.runtime.it.TestWorker.Reply;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Parking never loses an event and never holds up the step loop: when the parking queue is missing,
 * the event is not rejected into that same missing queue (which drops it); it stays unacknowledged while parking is
 * retried with a backoff, other events keep flowing, and once the queue is back the event is parked with its reason.
 */
class ParkingIT {

  static RuntimeHarness h;

  @BeforeAll
  static void start() {
    h = RuntimeHarness.create("parking");
    h.startRuntime();
  }

  @AfterAll
  static void stop() {
    h.close();
  }

  @Test
  void anEventThatCannotBeParkedYetIsKeptAndParkedOnceTheParkingQueueIsBack() throws Exception {
    h.apply("parkless", spec("order", step("only", "park-a", "only", null)));
    h.worker().serve("q.park-a.only", "park-a", "only", c -> Reply.success(null));
    String parking = Names.orchestratorDeadLetterQueue("parkless");
    try (Channel ch = h.amqp.createChannel()) {
      ch.queueDelete(parking);
      Map<String, Object> headers = Map.of("baton-workflow", "parkless", "baton-instance", UUID.randomUUID().toString(),
          "baton-step", "only", "baton-attempt", 1, "baton-action", "only");
      ch.basicPublish(Names.eventExchange("park-a"), "order.only.success", new AMQP.BasicProperties.Builder()
          .messageId("unparkable-1").contentType("application/json").deliveryMode(2).headers(headers).build(),
          "{not json".getBytes(StandardCharsets.UTF_8));
    }

    // Meanwhile the step loop carries on.
    UUID good = h.startOk("parkless", "while-parking-fails");
    h.awaitStatus(good, "SUCCEEDED", Duration.ofSeconds(15));

    try (Channel ch = h.amqp.createChannel()) {
      ch.queueDeclare(parking, true, false, false, Map.of("x-queue-type", "classic"));
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .until(() -> ch.messageCount(parking) == 1);
      GetResponse parked = ch.basicGet(parking, true);
      assertThat(parked.getProps().getMessageId()).isEqualTo("unparkable-1");
      assertThat(String.valueOf(parked.getProps().getHeaders().get("x-exception-message")))
          .contains("body is not JSON");
      await().atMost(Duration.ofSeconds(10)).until(() -> ch.messageCount(Names.orchestratorQueue("parkless")) == 0);
    }
    assertThat(h.counter("baton.events.parked", "parkless")).isEqualTo(1);
  }
}
