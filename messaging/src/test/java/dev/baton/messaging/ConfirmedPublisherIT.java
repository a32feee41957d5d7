package dev.baton.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.http.client.domain.ConnectionInfo;
import dev.baton.messaging.PublishResult.Failure;
import dev.baton.messaging.PublishResult.Status;
import dev.baton.sandbox.RabbitVhost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The publisher against the real broker: returns, nacks, channel errors, and a connection that drops and recovers. */
class ConfirmedPublisherIT {

  static RabbitVhost vhost;
  static Connection admin;
  static Channel adminChannel;

  @BeforeAll
  static void broker() throws Exception {
    vhost = RabbitVhost.create("messaging-publisher");
    admin = vhost.newConnection("publisher-it-admin");
    adminChannel = admin.createChannel();
  }

  @AfterAll
  static void close() throws Exception {
    admin.close();
    vhost.close();
  }

  static Connection connection(String name) throws Exception {
    ConnectionFactory f = vhost.connectionFactory();
    f.setNetworkRecoveryInterval(200);
    return f.newConnection(name);
  }

  static OutboundMessage message(String exchange, String key, boolean mandatory) {
    return new OutboundMessage(exchange, key, mandatory,
        new AMQP.BasicProperties.Builder().messageId(UUID.randomUUID().toString()).deliveryMode(2).build(),
        "{}".getBytes(), "test message");
  }

  @Test
  void aRoutedMessageIsConfirmedAndAMandatoryOneWithoutQueueComesBackUnroutable() throws Exception {
    adminChannel.exchangeDeclare("routes.ex", "direct");
    adminChannel.queueDeclare("q.routed", false, false, false, Map.of());
    adminChannel.queueBind("q.routed", "routes.ex", "routed");
    try (Connection c = connection("publisher-it-routes");
        ConfirmedPublisher publisher = new ConfirmedPublisher(c, "routes", Duration.ofSeconds(10))) {
      PublishResult routed = publisher.publish(message("routes.ex", "routed", true)).get();
      PublishResult unroutable = publisher.publish(message("routes.ex", "nowhere", true)).get();
      PublishResult dropped = publisher.publish(message("routes.ex", "nowhere", false)).get();

      assertThat(routed.status()).isEqualTo(Status.CONFIRMED);
      assertThat(unroutable.status()).isEqualTo(Status.UNROUTABLE);
      assertThat(unroutable.detail()).isEqualTo("312 NO_ROUTE");
      assertThat(dropped.status()).as("not mandatory: the broker drops it and confirms").isEqualTo(Status.CONFIRMED);
      assertThat(adminChannel.messageCount("q.routed")).isEqualTo(1);
      assertThat(publisher.pending()).isZero();
    }
  }

  @Test
  void aFullQueueThatRejectsPublishesNacks() throws Exception {
    adminChannel.queueDeclare("q.full", true, false, false, Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
    try (Connection c = connection("publisher-it-nacks");
        ConfirmedPublisher publisher = new ConfirmedPublisher(c, "nacks", Duration.ofSeconds(10))) {
      PublishResult first = publisher.publish(message("", "q.full", true)).get();
      PublishResult second = publisher.publish(message("", "q.full", true)).get();
      assertThat(first.status()).isEqualTo(Status.CONFIRMED);
      assertThat(second.status()).isEqualTo(Status.NACKED);
      assertThat(second.aboutTheMessage()).isTrue();
    }
  }

  @Test
  void aChannelErrorFailsTheMessagesAfterItAndTheNextPublishGoesOnAFreshChannel() throws Exception {
    adminChannel.queueDeclare("q.after-error", false, false, false, Map.of());
    try (Connection c = connection("publisher-it-channel-error");
        ConfirmedPublisher publisher = new ConfirmedPublisher(c, "channel-error", Duration.ofSeconds(10))) {
      assertThat(publisher.publish(message("", "q.after-error", true)).get().confirmed()).isTrue();
      long generation = publisher.generation();
      // An exchange that does not exist: the broker closes the channel (404), and what follows on it is lost.
      CompletableFuture<PublishResult> refused = publisher.publishInGeneration(message("no.such.ex", "k", true),
          generation);
      List<CompletableFuture<PublishResult>> behind = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        behind.add(publisher.publishInGeneration(message("", "q.after-error", true), generation));
      }
      assertThat(refused.get().failure()).isEqualTo(Failure.CHANNEL_ERROR);
      assertThat(refused.get().detail()).startsWith("404 NOT_FOUND");
      for (CompletableFuture<PublishResult> f : behind) {
        assertThat(f.get().failure()).isEqualTo(Failure.CHANNEL_ERROR);
      }
      assertThat(publisher.generation()).isNotEqualTo(generation);

      assertThat(publisher.publish(message("", "q.after-error", true)).get().confirmed()).isTrue();
      assertThat(adminChannel.messageCount("q.after-error")).isEqualTo(2);
      await().atMost(Duration.ofSeconds(30)).during(Duration.ofSeconds(6))
          .until(() -> channels("publisher-it-channel-error") == 1);
    }
  }

  @Test
  void aDroppedConnectionRecoversWithOneChannelAndTheRestartedSequenceConfirmsCorrectly() throws Exception {
    adminChannel.queueDeclare("q.recovery", false, false, false, Map.of());
    try (Connection c = connection("publisher-it-recovery");
        ConfirmedPublisher publisher = new ConfirmedPublisher(c, "recovery", Duration.ofSeconds(10))) {
      for (int i = 0; i < 50; i++) {
        assertThat(publisher.publish(message("", "q.recovery", true)).get().confirmed()).isTrue();
      }
      long generation = publisher.generation();
      await().atMost(Duration.ofSeconds(10)).until(() -> connectionInfo("publisher-it-recovery") != null);
      vhost.management().closeConnection(connectionInfo("publisher-it-recovery").getName(), "test: dropped");
      await().atMost(Duration.ofSeconds(10)).until(() -> publisher.generation() != generation);

      // Until recovery is done, publishes fail fast as CONNECTION; then the fresh sequence (from 1) confirms each one.
      List<CompletableFuture<PublishResult>> after = new ArrayList<>();
      await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
          .until(() -> publisher.publish(message("", "q.recovery", true)).get().confirmed());
      for (int i = 0; i < 100; i++) {
        after.add(publisher.publish(message("", "q.recovery", true)));
      }
      for (CompletableFuture<PublishResult> f : after) {
        assertThat(f.get().confirmed()).isTrue();
      }
      assertThat(publisher.pending()).isZero();
      assertThat(adminChannel.messageCount("q.recovery")).isEqualTo(151);
      await().atMost(Duration.ofSeconds(30)).during(Duration.ofSeconds(6))
          .until(() -> channels("publisher-it-recovery") == 1);
    }
  }

  private static ConnectionInfo connectionInfo(String clientName) {
    return vhost.management().getConnections().stream()
        .filter(c -> vhost.name().equals(c.getVhost()) && c.getClientProperties() != null
            && clientName.equals(c.getClientProperties().getConnectionName()))
        .findFirst().orElse(null);
  }

  private static int channels(String clientName) {
    ConnectionInfo info = connectionInfo(clientName);
    return info == null ? -1 : info.getChannels();
  }
}
