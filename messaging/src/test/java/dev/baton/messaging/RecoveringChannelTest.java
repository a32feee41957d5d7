package dev.baton.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import dev.baton.messaging.FakeChannels.FakeChannel;
import dev.baton.messaging.FakeChannels.FakeConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the holder keeps, waits for, or replaces its channel: the soak's "one idle channel per outage" rules. */
class RecoveringChannelTest {

  final FakeConnection connection = new FakeConnection();
  final AtomicLong clock = new AtomicLong(1_000);
  final AtomicInteger prepared = new AtomicInteger();
  final RecoveringChannel holder = new RecoveringChannel(connection.proxy(), ch -> prepared.incrementAndGet(),
      Duration.ofSeconds(60), clock::get);

  @Test
  void opensLazilyPreparesOnceAndHandsOutTheSameOpenChannel() throws IOException {
    assertThat(connection.opened).isEmpty();
    Channel first = holder.get();
    assertThat(holder.get()).isSameAs(first);
    assertThat(connection.opened).hasSize(1);
    assertThat(prepared).hasValue(1);
  }

  @Test
  void aConnectionLevelCloseWaitsForAutomaticRecoveryInsteadOfOpeningASecondChannel() throws IOException {
    Channel ch = holder.get();
    FakeChannel fake = connection.last();
    fake.connectionLost();

    assertThatThrownBy(holder::get).isInstanceOf(AwaitingRecoveryException.class);
    clock.addAndGet(Duration.ofSeconds(59).toNanos());
    assertThatThrownBy(holder::get).isInstanceOf(AwaitingRecoveryException.class);
    assertThat(connection.opened).hasSize(1);

    fake.recover();
    assertThat(holder.get()).isSameAs(ch);
    assertThat(connection.opened).hasSize(1);
    assertThat(prepared).hasValue(1);
  }

  @Test
  void aChannelWhoseRecoveryNeverComesIsAbortedAndReplacedAfterTheWait() throws IOException {
    holder.get();
    FakeChannel lost = connection.last();
    lost.connectionLost();
    assertThatThrownBy(holder::get).isInstanceOf(AwaitingRecoveryException.class);

    clock.addAndGet(Duration.ofSeconds(61).toNanos());
    Channel replacement = holder.get();
    assertThat(replacement).isNotSameAs(lost.proxy);
    assertThat(lost.aborted).as("aborted, which takes it off the recovery list").isTrue();
    assertThat(prepared).hasValue(2);
  }

  @Test
  void aChannelClosedByTheBrokerIsAbortedAndReplacedAtOnce() throws IOException {
    holder.get();
    FakeChannel closed = connection.last();
    closed.channelError(406, "PRECONDITION_FAILED - message size 134217800 is larger than configured max size");

    Channel replacement = holder.get();
    assertThat(replacement).isSameAs(connection.last().proxy).isNotSameAs(closed.proxy);
    assertThat(closed.aborted).isTrue();
    assertThat(prepared).hasValue(2);
  }

  @Test
  void afterAFailureAnOpenChannelIsReplacedAndAClosedOneKeptForRecovery() throws IOException {
    holder.get();
    FakeChannel open = connection.last();
    holder.failed();
    assertThat(open.aborted).isTrue();
    holder.get();
    assertThat(connection.opened).hasSize(2);

    FakeChannel second = connection.last();
    second.connectionLost();
    holder.failed();
    assertThat(holder.current()).isSameAs(second.proxy);
    assertThatThrownBy(holder::get).isInstanceOf(AwaitingRecoveryException.class);
    assertThat(connection.opened).hasSize(2);
  }

  @Test
  void aChannelThatCannotBePreparedIsNotKept() throws IOException {
    AtomicInteger attempts = new AtomicInteger();
    RecoveringChannel failing = new RecoveringChannel(connection.proxy(), ch -> {
      if (attempts.incrementAndGet() == 1) {
        throw new IOException("queue not found");
      }
    });
    assertThatThrownBy(failing::get).hasMessage("queue not found");
    assertThat(connection.last().aborted).isTrue();
    assertThat(failing.get()).isSameAs(connection.last().proxy);
    assertThat(connection.opened).hasSize(2);
  }

  @Test
  void aDownConnectionMeansWaitingToo() {
    connection.open = false;
    assertThatThrownBy(holder::get).isInstanceOf(AwaitingRecoveryException.class);
  }

  @Test
  void closeClosesTheChannelForGood() throws IOException {
    holder.get();
    holder.close();
    assertThat(connection.last().proxy.isOpen()).isFalse();
    assertThatThrownBy(holder::get).isInstanceOf(IOException.class).hasMessageContaining("closed");
  }
}
