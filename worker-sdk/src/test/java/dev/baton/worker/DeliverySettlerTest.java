package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * The acking rules, with a recording stand-in for the consuming channel and an ack executor the test runs by hand
 * (so that what is coalesced into one frame is deterministic). Publishing and confirms are the messaging module's
 * {@code ConfirmedPublisher}; the broker-facing paths are covered by the integration tests.
 */
class DeliverySettlerTest {

  /** Records acks and nacks. */
  static final class RecordingChannel {
    final List<String> calls = new ArrayList<>();

    Channel proxy() {
      return (Channel) Proxy.newProxyInstance(Channel.class.getClassLoader(), new Class<?>[] {Channel.class},
          (p, method, args) -> switch (method.getName()) {
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

  /** Runs ack tasks only when the test says so. */
  static final class ManualExecutor implements Executor {
    final List<Runnable> tasks = new ArrayList<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    void runAll() {
      List<Runnable> now = List.copyOf(tasks);
      tasks.clear();
      now.forEach(Runnable::run);
    }
  }

  final RecordingChannel channel = new RecordingChannel();
  final InFlight inFlight = new InFlight();
  final ManualExecutor acks = new ManualExecutor();
  final DeliverySettler settler = new DeliverySettler(channel.proxy(), inFlight, "q.test.cmd", acks);

  @Test
  void deliveriesReadyTogetherFromTheOldestGoWithOneAckMultiple() {
    DeliverySettler.Delivery d1 = settler.arrived(1);
    DeliverySettler.Delivery d2 = settler.arrived(2);
    DeliverySettler.Delivery d3 = settler.arrived(3);
    d2.ack();
    d1.ack();
    assertThat(channel.calls).as("nothing sent before the ack task runs").isEmpty();
    acks.runAll();
    assertThat(channel.calls).containsExactly("ack up to 2");
    assertThat(inFlight.count()).isEqualTo(1);
    d3.ack();
    acks.runAll();
    assertThat(channel.calls).containsExactly("ack up to 2", "ack 3");
    assertThat(inFlight.count()).isZero();
  }

  @Test
  void anAckMultipleNeverCoversADeliveryStillWaiting() {
    settler.arrived(1); // still in its handler, or its publishes unconfirmed
    DeliverySettler.Delivery d2 = settler.arrived(2);
    DeliverySettler.Delivery d3 = settler.arrived(3);
    d2.ack();
    d3.ack();
    acks.runAll();
    assertThat(channel.calls).containsExactly("ack 2", "ack 3");
    assertThat(settler.openDeliveries()).containsOnlyKeys(1L);
  }

  @Test
  void rejectAndReleaseAreSentAtOnce() {
    settler.arrived(10).reject();
    settler.arrived(11).release();
    assertThat(channel.calls).containsExactly("nack 10 dead-letter", "nack 11 requeue");
    assertThat(inFlight.count()).isZero();
  }

  @Test
  void aClosedChannelAbandonsItsOpenDeliveriesAndLateSettlementsDoNothing() {
    DeliverySettler.Delivery waiting = settler.arrived(8);
    DeliverySettler.Delivery inHandler = settler.arrived(9);
    settler.shutdownCompleted(new ShutdownSignalException(true, false, null, null));
    assertThat(inFlight.count()).isZero();
    assertThat(waiting.stale()).isTrue();

    waiting.ack();
    inHandler.reject();
    acks.runAll();
    // Neither is settled late: the broker redelivers both.
    assertThat(channel.calls).isEmpty();
  }

  @Test
  void aDeliveryWhoseHandlerStillRunsStaysInFlightUntilTheHandlerIsOverThenIsNotSettled() {
    DeliverySettler.Delivery running = settler.arrived(5);
    assertThat(running.startProcessing()).isTrue();
    settler.shutdownCompleted(new ShutdownSignalException(true, false, null, null));
    assertThat(inFlight.count()).as("a graceful shutdown still waits for the handler").isEqualTo(1);

    assertThat(running.decided()).as("its decision is not carried out: the broker redelivers it").isFalse();
    assertThat(inFlight.count()).isZero();
    assertThat(channel.calls).isEmpty();
  }

  @Test
  void aDeliveryLeftUnackedOnPurposeStopsAckMultipleUntilTheChannelIsGone() {
    DeliverySettler.Delivery given = settler.arrived(1);
    DeliverySettler.Delivery d2 = settler.arrived(2);
    DeliverySettler.Delivery d3 = settler.arrived(3);
    given.abandon();
    d2.ack();
    d3.ack();
    acks.runAll();
    assertThat(channel.calls).containsExactly("ack 2", "ack 3");

    settler.shutdownCompleted(new ShutdownSignalException(true, false, null, null));
    DeliverySettler.Delivery d4 = settler.arrived(4);
    DeliverySettler.Delivery d5 = settler.arrived(5);
    d4.ack();
    d5.ack();
    acks.runAll();
    assertThat(channel.calls).endsWith("ack up to 5");
  }
}
