package dev.baton.runtime.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Envelope;
import dev.baton.runtime.metrics.RuntimeMetrics.ParkReason;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.testing.RecordingChannel;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Parking never blocks the lane that asks for it: with a broker that blocks publishers (a memory
 * alarm: {@code basicPublish} does not return), the old {@code synchronized park} held the lane thread inside the
 * publish. Stand-ins for the connections; the broker paths are in {@code ParkingIT}.
 */
class EventSettlerTest {

  final RecordingChannel consuming = new RecordingChannel();
  final CountDownLatch brokerUnblocks = new CountDownLatch(1);

  @Test
  void parkingReturnsAtOnceWhilePublishingIsBlockedAndAcksOnlyOnceTheParkedCopyIsConfirmed() throws Exception {
    ParkingLot parking = new ParkingLot(blockedPublisherConnection());
    EventSettler settler = new EventSettler(parking, new RuntimeMetrics());
    PendingDelivery d1 = delivery(consuming.channel(), 1);
    PendingDelivery d2 = delivery(consuming.channel(), 2);
    PendingDelivery d3 = delivery(consuming.channel(), 3);
    try {
      long started = System.nanoTime();
      settler.park(d1, "body is not JSON", "MalformedEvent", ParkReason.MALFORMED);
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));

      // The lane goes on; while the park waits, no ACK "multiple" may cover delivery 1.
      settler.ackBatch(List.of(d2, d3));
      assertThat(consuming.calls()).containsExactly("ack 2", "ack 3");
      // Delivery 1 is not acked while the broker has not confirmed its parked copy.
      await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
          .until(() -> consuming.calls().equals(List.of("ack 2", "ack 3")));
    } finally {
      brokerUnblocks.countDown();
      parking.close();
    }
  }

  private PendingDelivery delivery(Channel channel, long tag) {
    return new PendingDelivery(channel, "wf", new Envelope(tag, false, "wf-a.event.topic.ex", "order.one.success"),
        new AMQP.BasicProperties.Builder().messageId("m-" + tag).headers(Map.of()).build(), new byte[] {'{'});
  }

  /** A publisher connection whose broker has raised a resource alarm: publishing blocks until the test ends. */
  private Connection blockedPublisherConnection() {
    Channel blocked = (Channel) Proxy.newProxyInstance(Channel.class.getClassLoader(), new Class<?>[] {Channel.class},
        (p, m, args) -> switch (m.getName()) {
          case "getNextPublishSeqNo" -> 1L;
          case "basicPublish" -> {
            brokerUnblocks.await(30, TimeUnit.SECONDS);
            yield null;
          }
          case "isOpen" -> true;
          case "hashCode" -> System.identityHashCode(p);
          case "equals" -> p == args[0];
          default -> null; // confirm mode, listeners, close: nothing to do
        });
    return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
        (p, m, args) -> switch (m.getName()) {
          case "createChannel" -> blocked;
          case "isOpen" -> true;
          case "hashCode" -> System.identityHashCode(p);
          case "equals" -> p == args[0];
          default -> null;
        });
  }
}
