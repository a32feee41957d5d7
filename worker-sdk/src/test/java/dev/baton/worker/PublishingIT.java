package dev.baton.worker;

import static dev.baton.worker.TestBroker.commandBody;
import static dev.baton.worker.TestBroker.header;
import static dev.baton.worker.TestBroker.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.http.client.domain.ChannelInfo;
import com.rabbitmq.http.client.domain.ConnectionInfo;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How the worker publishes: on a connection of its own, apart from consuming; a publish the broker
 * nacks is sent again after a backoff instead of the command being requeued at once (a hot loop); a result over the
 * size limit is not published, the command parks with {@code PayloadTooLarge} and a small error event.
 */
class PublishingIT {

  @RegisterExtension
  static final TestBroker broker = new TestBroker("sdk-publishing");

  @Test
  void aNackedResultIsPublishedAgainAfterABackoffWithoutTheCommandComingBack() throws Exception {
    ServiceModel model = TestBroker.commandService("nacked", "pay", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model);
    // The only queue for the event is full and refuses more: the broker nacks the worker's result.
    String full = "q.full-events";
    try (Connection c = broker.vhost.newConnection("full-queue"); Channel ch = c.createChannel()) {
      ch.queueDeclare(full, false, false, false, Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
      ch.queueBind(full, t.eventExchange(), "#");
      ch.basicPublish("", full, null, "filler".getBytes());
    }
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger duplicates = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model)
        .listener(new WorkerListener() {
          @Override
          public void duplicate(String consumer, String key) {
            duplicates.incrementAndGet();
          }
        })
        .command("pay", cmd -> {
          calls.incrementAndGet();
          return CommandResult.success(Map.of("paid", true));
        })
        .build()) {
      worker.start();
      broker.sendCommand("nacked", "pay", "m-1", commandBody("i-1", "{}"));
      // For a while the broker keeps refusing: the command stays unacked with the worker, not bounced back to it.
      await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(4))
          .until(() -> worker.inFlight() == 1 && duplicates.get() == 0 && calls.get() == 1);

      assertThat(broker.take(full).getBody()).isEqualTo("filler".getBytes()); // room again
      GetResponse event = broker.take(full);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
      await().atMost(Duration.ofSeconds(40)).until(() -> worker.inFlight() == 0);
    }
    assertThat(calls).hasValue(1);
    assertThat(duplicates).hasValue(0);
    assertThat(broker.count("q.nacked.pay")).isZero();
  }

  /**
   * A result no queue is bound for yet (the operator binds an older revision's keys again within a poll of the
   * runtime's routes) comes back to the worker, is published again with the backoff, and arrives once a queue is
   * bound; the handler ran once. Fails on the code that published results with mandatory=false: it was dropped.
   */
  @Test
  void aResultNoQueueIsBoundForIsPublishedAgainUntilOneIs() throws Exception {
    ServiceModel model = TestBroker.commandService("unbound", "pay", RetryStaircase.NONE);
    ServiceTopology t = broker.declare(model); // no queue bound to the event exchange
    AtomicInteger calls = new AtomicInteger();

    try (BatonWorker worker = broker.worker(model)
        .command("pay", cmd -> {
          calls.incrementAndGet();
          return CommandResult.success(Map.of("paid", true));
        })
        .build()) {
      worker.start();
      broker.sendCommand("unbound", "pay", "m-1", commandBody("i-1", "{}"));
      await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
          .until(() -> worker.inFlight() == 1 && calls.get() == 1);

      String events = broker.probe(t.eventExchange(), "order.pay.success"); // the binding comes back
      GetResponse event = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .until(() -> broker.count(events) > 0 ? broker.take(events) : null, r -> r != null);
      assertThat(event.getEnvelope().getRoutingKey()).isEqualTo("order.pay.success");
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(calls).hasValue(1);
    assertThat(broker.count("q.unbound.pay")).isZero();
    assertThat(broker.count("q.dlx.unbound.pay")).isZero();
  }

  @Test
  void aResultOverTheLimitParksTheCommandWithPayloadTooLargeAndASmallErrorEvent() throws Exception {
    // Retries are configured, but a too-large result would be too large on every retry: straight to the parking lot.
    ServiceModel model = TestBroker.commandService("bulky", "report", RetryStaircase.of(3, List.of("200ms")));
    String events = broker.declareWithEventProbe(model);
    String huge = "x".repeat(17 * 1024 * 1024); // over the default 16 MiB

    try (BatonWorker worker = broker.worker(model)
        .command("report", cmd -> CommandResult.success(Map.of("report", huge)))
        .build()) {
      worker.start();
      broker.sendCommand("bulky", "report", TestBroker.commandProperties("m-big", "i-m-big", "report"),
          commandBody("i-big", "{}"));

      GetResponse parked = broker.take("q.dlx.bulky.report");
      assertThat(header(parked, "x-exception-type")).isEqualTo("PayloadTooLarge");
      assertThat(header(parked, "x-exception-message")).contains("over the limit of 16777216 bytes");
      assertThat(header(parked, "baton-retries")).isEqualTo("0");
      GetResponse error = broker.take(events);
      assertThat(error.getEnvelope().getRoutingKey()).isEqualTo("order.report.error");
      assertThat(error.getBody().length).isLessThan(2_000);
      assertThat(json(error).get("errorCode").asText()).isEqualTo("PayloadTooLarge");
      await().atMost(TestBroker.WAIT).until(() -> worker.inFlight() == 0);
    }
    assertThat(broker.count(events)).isZero();
    assertThat(broker.count("q.retry.bulky.report.200ms")).isZero();
  }

  @Test
  void resultsGoOutOnAPublisherConnectionOfTheirOwnAndTheConsumingChannelsOnlyConsume() throws Exception {
    ServiceModel model = TestBroker.commandService("apart", "pay", RetryStaircase.NONE);
    String events = broker.declareWithEventProbe(model);

    try (BatonWorker worker = broker.worker(model).connectionName("apart-worker").concurrency(2)
        .command("pay", cmd -> CommandResult.success())
        .build()) {
      worker.start();
      broker.sendCommands("apart", "pay", 20);
      broker.take(events, 20);

      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
        ConnectionInfo consuming = connection("apart-worker");
        ConnectionInfo publishing = connection("apart-worker-publisher");
        assertThat(consuming).isNotNull();
        assertThat(publishing).isNotNull();
        List<ChannelInfo> consumerChannels = channels(consuming);
        List<ChannelInfo> publisherChannels = channels(publishing);
        assertThat(consumerChannels).hasSize(2).allSatisfy(c -> {
          assertThat(c.usesPublisherConfirms()).isFalse();
          assertThat(c.getConsumerCount()).isEqualTo(1);
        });
        assertThat(publisherChannels).singleElement().satisfies(c -> {
          assertThat(c.usesPublisherConfirms()).isTrue();
          assertThat(c.getConsumerCount()).isZero();
        });
      });
    }
  }

  private static ConnectionInfo connection(String clientName) {
    return broker.vhost.management().getConnections().stream()
        .filter(c -> broker.vhost.name().equals(c.getVhost()) && c.getClientProperties() != null
            && clientName.equals(c.getClientProperties().getConnectionName()))
        .findFirst().orElse(null);
  }

  private static List<ChannelInfo> channels(ConnectionInfo connection) {
    return broker.vhost.management().getChannels().stream()
        .filter(c -> c.getConnectionDetails() != null && connection.getName().equals(c.getConnectionDetails().getName()))
        .toList();
  }
}
