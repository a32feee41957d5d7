package dev.baton.operator.broker;

import dev.baton.operator.TestClock;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.contract.topology.QueueSpec;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BrokerSnapshotTest {

  final FakeBrokerClient broker = new FakeBrokerClient();
  final TestClock clock = new TestClock();
  final BrokerSnapshot snapshot = new BrokerSnapshot(broker, Duration.ofSeconds(30), clock);

  @Test
  void passesWithinTheIntervalShareOneListing() {
    for (int pass = 0; pass < 100; pass++) {
      snapshot.refreshIfStale();
      clock.advance(Duration.ofMillis(100));
    }
    assertThat(broker.reads).containsExactly("queues");
    assertThat(snapshot.listings()).isEqualTo(1);

    clock.advance(Duration.ofSeconds(30));
    snapshot.refreshIfStale();
    assertThat(snapshot.listings()).as("listed again once the interval is over").isEqualTo(2);
  }

  @Test
  void writesGoToTheBrokerAndIntoTheSnapshotWithoutAnotherListing() {
    snapshot.refreshIfStale();
    snapshot.declareQueue(new QueueSpec("q.a.b", QueueSpec.Role.CONSUMER, Map.of()));

    assertThat(broker.queues).containsKey("q.a.b");
    assertThat(snapshot.queue("q.a.b")).isPresent();
    assertThat(snapshot.queuesStartingWith("q.a.")).extracting(BrokerQueue::name).containsExactly("q.a.b");
    snapshot.deleteQueue("q.a.b");
    assertThat(snapshot.queue("q.a.b")).isEmpty();
    assertThat(snapshot.listings()).isEqualTo(1);
  }

  @Test
  void aWriteMadeWhileTheBrokerIsListedIsNotLostWhenTheListingReplacesTheSnapshot() {
    snapshot.refreshIfStale();
    clock.advance(Duration.ofSeconds(31));
    // A pass of another resource declares a queue after the queues were listed, before the listing is complete.
    broker.afterListingQueues = () -> {
      broker.afterListingQueues = () -> {};
      snapshot.declareQueue(new QueueSpec("q.late.c", QueueSpec.Role.CONSUMER, Map.of()));
    };
    snapshot.refreshIfStale();

    assertThat(snapshot.listings()).isEqualTo(2);
    assertThat(snapshot.queue("q.late.c")).as("re-applied over the listing that missed it").isPresent();
  }

  @Test
  void whileOnePassListsTheOthersGoOnWithTheLastListingInsteadOfWaiting() throws Exception {
    snapshot.refreshIfStale();
    snapshot.declareQueue(new QueueSpec("q.known.c", QueueSpec.Role.CONSUMER, Map.of()));
    clock.advance(Duration.ofSeconds(31));
    CompletableFuture<Boolean> otherPass = new CompletableFuture<>();
    broker.afterListingQueues = () -> {
      broker.afterListingQueues = () -> {};
      // Another reconciler thread, while this one lists: it must not wait for the listing to end.
      Thread other = new Thread(() -> {
        snapshot.refreshIfStale();
        otherPass.complete(snapshot.queue("q.known.c").isPresent());
      });
      other.start();
      try {
        other.join(10_000); // bounded: with passes waiting for the listing, it never ends
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    };
    snapshot.refreshIfStale();

    assertThat(otherPass.get(10, TimeUnit.SECONDS)).as("the other pass read the last listing").isTrue();
    assertThat(snapshot.listings()).isEqualTo(2);
  }

  @Test
  void aFailedListingIsReportedAndNotRepeatedByEveryPassAtOnce() {
    broker.unreachable = true;
    assertThatThrownBy(snapshot::refreshIfStale).isInstanceOf(BrokerException.class);
    broker.reads.clear();
    broker.unreachable = false;

    assertThatThrownBy(snapshot::refreshIfStale).as("within a second: the same failure, no request")
        .isInstanceOf(BrokerException.class);
    assertThat(broker.reads).isEmpty();

    clock.advance(Duration.ofSeconds(2));
    snapshot.refreshIfStale();
    assertThat(snapshot.listings()).isEqualTo(1);
  }

  @Test
  void aSetPasswordIsRecordedAsAHashThatMatchesIt() {
    snapshot.refreshIfStale();
    snapshot.putUser("baton-a", "s3cret", java.util.List.of());
    BrokerUser user = snapshot.user("baton-a").orElseThrow();
    assertThat(PasswordHash.matches(user, "s3cret")).isTrue();
    assertThat(user.passwordHash()).doesNotContain("s3cret");
  }
}
