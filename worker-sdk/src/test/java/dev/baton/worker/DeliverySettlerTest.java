package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The settling rules where the real broker cannot be made to misbehave on demand (nacked confirms, confirms that
 * never come). The channel is a recording stand-in; the broker-facing paths are covered by the integration tests.
 */
class DeliverySettlerTest {

  /** Records acks, nacks and publishes; hands out publish sequence numbers like a channel in confirm mode. */
  static final class RecordingChannel {
    final List<String> calls = new ArrayList<>();
    long nextSeq = 1;

    Channel proxy() {
      return (Channel) Proxy.newProxyInstance(Channel.class.getClassLoader(), new Class<?>[] {Channel.class},
          (p, method, args) -> switch (method.getName()) {
            case "getNextPublishSeqNo" -> nextSeq;
            case "basicPublish" -> {
              calls.add("publish " + args[1] + " #" + nextSeq++);
              yield null;
            }
            case "basicAck" -> {
              // "ack up to N": one ACK "multiple" settling every delivery up to N
              calls.add((Boolean.TRUE.equals(args[1]) ? "ack up to " : "ack ") + args[0]);
              yield null;
            }
            case "basicNack" -> {
              calls.add("nack " + args[0] + (Boolean.TRUE.equals(args[2]) ? " requeue" : " dead-letter"));
              yield null;
            }
            default -> throw new UnsupportedOperationException(method.getName());
          });
    }
  }

  final RecordingChannel channel = new RecordingChannel();
  final InFlight inFlight = new InFlight();
  final DeliverySettler settler = new DeliverySettler(channel.proxy(), inFlight, "q.test.cmd");

  static OutboundMessage message(String key) {
    return new OutboundMessage("ex", key, false, new AMQP.BasicProperties.Builder().messageId("m-" + key).build(),
        new byte[0], key);
  }

  private void deliver(long tag, DeliveryDecision decision) {
    inFlight.begin();
    settler.settle(settler.generation(), tag, decision);
  }

  @Test
  void acksOnlyWhenEveryPublishOfTheDeliveryIsConfirmed() {
    deliver(7, DeliveryDecision.publishThenAck(List.of(message("dead-letter"), message("error-event"))));
    settler.handleAck(1, false);
    assertThat(channel.calls).containsExactly("publish dead-letter #1", "publish error-event #2");
    assertThat(inFlight.count()).isEqualTo(1);
    settler.handleAck(2, false);
    assertThat(channel.calls).endsWith("ack 7");
    assertThat(inFlight.count()).isZero();
  }

  @Test
  void aMultipleConfirmSettlesEveryDeliveryUpToIt() {
    deliver(1, DeliveryDecision.publishThenAck(message("a")));
    deliver(2, DeliveryDecision.publishThenAck(message("b")));
    deliver(3, DeliveryDecision.publishThenAck(message("c")));
    settler.handleAck(2, true);
    // One frame for both: the oldest unsettled deliveries are all confirmed.
    assertThat(channel.calls).contains("ack up to 2").doesNotContain("ack 1", "ack 3");
    assertThat(inFlight.count()).isEqualTo(1);
    settler.handleAck(3, false);
    assertThat(channel.calls).contains("ack 3");
    assertThat(inFlight.count()).isZero();
  }

  @Test
  void anAckMultipleNeverCoversADeliveryStillWaiting() {
    deliver(1, DeliveryDecision.publishThenAck(List.of(message("a1"), message("a2"))));
    deliver(2, DeliveryDecision.publishThenAck(message("b")));
    deliver(3, DeliveryDecision.publishThenAck(message("c")));
    // Confirms of #1 (half of delivery 1), #3 (delivery 2) and #4 (delivery 3): delivery 1 still waits for #2.
    settler.handleAck(1, false);
    settler.handleAck(3, false);
    settler.handleAck(4, false);
    assertThat(channel.calls).contains("ack 2", "ack 3").noneMatch(c -> c.startsWith("ack up to"))
        .doesNotContain("ack 1");
    settler.handleAck(2, false);
    assertThat(channel.calls).contains("ack 1");
    assertThat(inFlight.count()).isZero();
  }

  @Test
  void aPublishTheBrokerNacksRequeuesTheDelivery() {
    deliver(4, DeliveryDecision.publishThenAck(message("event")));
    settler.handleNack(1, false);
    assertThat(channel.calls).containsExactly("publish event #1", "nack 4 requeue");
  }

  @Test
  void anUnroutableMandatoryPublishRejectsTheDeliveryToItsDeadLetterPath() {
    OutboundMessage retry = new OutboundMessage("retry-ex", "q.retry.s.c.1s", true,
        new AMQP.BasicProperties.Builder().messageId("m-1").build(), new byte[0], "retry");
    deliver(5, DeliveryDecision.publishThenAck(retry));
    settler.handleReturn(312, "NO_ROUTE", "retry-ex", "q.retry.s.c.1s", retry.properties(), new byte[0]);
    settler.handleAck(1, false);
    assertThat(channel.calls).containsExactly("publish q.retry.s.c.1s #1", "nack 5 dead-letter");
  }

  @Test
  void aClosedChannelAbandonsUnconfirmedDeliveriesAndIgnoresStaleOnes() {
    long before = settler.generation();
    inFlight.begin();
    settler.settle(before, 8, DeliveryDecision.publishThenAck(message("event")));
    inFlight.begin(); // a handler still running while the channel goes away
    settler.shutdownCompleted(new ShutdownSignalException(false, false, null, null));
    assertThat(inFlight.count()).isEqualTo(1);

    settler.settle(before, 9, DeliveryDecision.publishThenAck(message("late")));
    assertThat(inFlight.count()).isZero();
    // Neither is acked nor published late: the broker redelivers both.
    assertThat(channel.calls).containsExactly("publish event #1");
  }

  @Test
  void rejectAndPlainAckNeedNoConfirm() {
    deliver(10, DeliveryDecision.ack());
    deliver(11, DeliveryDecision.reject());
    assertThat(channel.calls).containsExactly("ack 10", "nack 11 dead-letter");
    assertThat(inFlight.count()).isZero();
  }
}
