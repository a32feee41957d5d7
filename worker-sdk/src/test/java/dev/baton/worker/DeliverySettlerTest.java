package dev.baton.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.ShutdownSignalException;
import dev.baton.testing.RecordingChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * The acking rules, with a recording stand-in for the consuming channel ({@link RecordingChannel}) and an ack executor the test runs by hand
 * (so that what is coalesced into one frame is deterministic). Publishing and confirms are the messaging module's
 * {@code ConfirmedPublisher}; the broker-facing paths are covered by the integration tests.
 */
class DeliverySettlerTest {

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
  final DeliverySettler settler = new DeliverySettler(channel.channel(), inFlight, "q.test.cmd", acks);

  private List<DeliverySettler.Delivery> arrive(long... tags) {
    return Arrays.stream(tags).mapToObj(settler::arrived).toList();
  }

  @Test
  void deliveriesReadyTogetherFromTheOldestGoWithOneAckMultiple() {
    List<DeliverySettler.Delivery> d = arrive(1, 2, 3);
    d.get(1).ack();
    d.get(0).ack();
    assertThat(channel.calls()).as("nothing sent before the ack task runs").isEmpty();
    acks.runAll();
    assertThat(channel.calls()).containsExactly("ack up to 2");
    assertThat(inFlight.count()).isEqualTo(1);
    d.get(2).ack();
    acks.runAll();
    assertThat(channel.calls()).containsExactly("ack up to 2", "ack 3");
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
    assertThat(channel.calls()).containsExactly("ack 2", "ack 3");
    assertThat(settler.openDeliveries()).containsOnlyKeys(1L);
  }

  @Test
  void rejectAndReleaseAreSentAtOnce() {
    settler.arrived(10).reject();
    settler.arrived(11).release();
    assertThat(channel.calls()).containsExactly("nack 10 dead-letter", "nack 11 requeue");
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
    assertThat(channel.calls()).isEmpty();
  }

  @Test
  void aDeliveryWhoseHandlerStillRunsStaysInFlightUntilTheHandlerIsOverThenIsNotSettled() {
    DeliverySettler.Delivery running = settler.arrived(5);
    assertThat(running.startProcessing()).isTrue();
    settler.shutdownCompleted(new ShutdownSignalException(true, false, null, null));
    assertThat(inFlight.count()).as("a graceful shutdown still waits for the handler").isEqualTo(1);

    assertThat(running.decided()).as("its decision is not carried out: the broker redelivers it").isFalse();
    assertThat(inFlight.count()).isZero();
    assertThat(channel.calls()).isEmpty();
  }

  @Test
  void aDeliveryLeftUnackedOnPurposeStopsAckMultipleUntilTheChannelIsGone() {
    List<DeliverySettler.Delivery> d = arrive(1, 2, 3);
    d.get(0).abandon();
    d.get(1).ack();
    d.get(2).ack();
    acks.runAll();
    assertThat(channel.calls()).containsExactly("ack 2", "ack 3");

    settler.shutdownCompleted(new ShutdownSignalException(true, false, null, null));
    arrive(4, 5).forEach(DeliverySettler.Delivery::ack);
    acks.runAll();
    assertThat(channel.calls()).endsWith("ack up to 5");
  }
}
