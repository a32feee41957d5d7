package dev.baton.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import dev.baton.messaging.FakeChannels.FakeChannel;
import dev.baton.messaging.FakeChannels.FakeConnection;
import dev.baton.messaging.PublishResult.Failure;
import dev.baton.messaging.PublishResult.Status;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The confirm bookkeeping, with a stand-in channel playing the broker: sequence numbers, returns, nacks, a channel
 * the broker closes, a lost connection and its recovery, timeouts. The real broker: {@code ConfirmedPublisherIT}.
 */
class ConfirmedPublisherTest {

  final FakeConnection connection = new FakeConnection();
  final ConfirmedPublisher publisher = new ConfirmedPublisher(connection.proxy(), "test", Duration.ofSeconds(30));

  @AfterEach
  void close() {
    publisher.close();
  }

  static OutboundMessage message(String key) {
    return new OutboundMessage("ex", key, true, new AMQP.BasicProperties.Builder().messageId("m-" + key).build(),
        new byte[] {1}, key);
  }

  private List<CompletableFuture<PublishResult>> publishAll(String... keys) {
    return Arrays.stream(keys).map(k -> publisher.publish(message(k))).toList();
  }

  @Test
  void eachMessageIsConfirmedByItsOwnSequenceNumberAndAMultipleAckCoversEveryOneUpToIt() throws Exception {
    List<CompletableFuture<PublishResult>> abc = publishAll("a", "b", "c");
    CompletableFuture<PublishResult> a = abc.get(0);
    CompletableFuture<PublishResult> b = abc.get(1);
    CompletableFuture<PublishResult> c = abc.get(2);
    FakeChannel ch = connection.last();
    assertThat(ch.publishes).containsExactly("ex a #1", "ex b #2", "ex c #3");

    ch.ack(2, true);
    assertThat(a).isCompletedWithValue(PublishResult.CONFIRMED);
    assertThat(b).isCompletedWithValue(PublishResult.CONFIRMED);
    assertThat(c).isNotDone();
    assertThat(publisher.pending()).isEqualTo(1);
    ch.ack(3, false);
    assertThat(c.get().confirmed()).isTrue();
    assertThat(publisher.pending()).isZero();
  }

  @Test
  void aNackedMessageSaysSoAndTheOthersAreUntouched() throws Exception {
    CompletableFuture<PublishResult> a = publisher.publish(message("a"));
    CompletableFuture<PublishResult> b = publisher.publish(message("b"));
    connection.last().nack(1, false);
    assertThat(a.get().status()).isEqualTo(Status.NACKED);
    assertThat(a.get().aboutTheMessage()).isTrue();
    assertThat(b).isNotDone();
  }

  @Test
  void aReturnMarksTheOldestWaitingMessageThatLooksLikeItUnroutable() throws Exception {
    List<CompletableFuture<PublishResult>> published = publishAll("a", "b", "a");
    CompletableFuture<PublishResult> first = published.get(0);
    CompletableFuture<PublishResult> other = published.get(1);
    CompletableFuture<PublishResult> again = published.get(2);
    FakeChannel ch = connection.last();
    ch.returnMessage("ex", "a", "m-a");
    ch.ack(3, true); // the broker confirms a returned message too

    assertThat(first.get().status()).isEqualTo(Status.UNROUTABLE);
    assertThat(first.get().detail()).isEqualTo("312 NO_ROUTE");
    assertThat(other.get().confirmed()).isTrue();
    assertThat(again.get().confirmed()).isTrue();
    assertThat(publisher.pending()).isZero();
  }

  /**
   * The relay's old set of returned message ids was never cleared for an abandoned batch, so a later, routable
   * re-send of the same message was taken for unroutable: here a return belongs to its own publish only.
   */
  @Test
  void aReturnLeavesNothingBehindForALaterPublishOfTheSameMessage() throws Exception {
    CompletableFuture<PublishResult> returned = publisher.publish(message("a"));
    FakeChannel ch = connection.last();
    ch.returnMessage("ex", "a", "m-a");
    ch.connectionLost(); // before the confirm: the batch would be abandoned
    assertThat(returned.get().status()).isEqualTo(Status.UNROUTABLE);
    assertThat(publisher.pending()).isZero();

    ch.recover();
    CompletableFuture<PublishResult> again = publisher.publish(message("a"));
    ch.ack(1, false);
    assertThat(again.get().confirmed()).isTrue();
  }

  @Test
  void aChannelTheBrokerClosesFailsWhatWaitsAndTheNextPublishGoesOnAFreshChannelFromSequenceOne()
      throws Exception {
    CompletableFuture<PublishResult> waiting = publisher.publish(message("big"));
    FakeChannel closed = connection.last();
    long generation = publisher.generation();
    closed.channelError(406, "PRECONDITION_FAILED - message size 134217800 is larger than configured max size");

    PublishResult failed = waiting.get();
    assertThat(failed.failure()).isEqualTo(Failure.CHANNEL_ERROR);
    assertThat(failed.detail()).contains("406 PRECONDITION_FAILED");
    assertThat(publisher.pending()).isZero();

    // A caller publishing in order stops here instead of carrying on on the replacement channel.
    PublishResult notSent = publisher.publishInGeneration(message("next"), generation).get();
    assertThat(notSent.failure()).isEqualTo(Failure.CHANNEL_ERROR);
    assertThat(notSent.detail()).startsWith("not sent");

    CompletableFuture<PublishResult> next = publisher.publish(message("next"));
    FakeChannel fresh = connection.last();
    assertThat(fresh).isNotSameAs(closed);
    assertThat(closed.aborted).isTrue();
    assertThat(fresh.publishes).containsExactly("ex next #1");
    fresh.ack(1, false);
    assertThat(next.get().confirmed()).isTrue();
  }

  @Test
  void aLostConnectionFailsWhatWaitsAndAfterRecoveryTheRestartedSequenceIsNotConfusedWithTheOldOne()
      throws Exception {
    CompletableFuture<PublishResult> one = publisher.publish(message("one"));
    CompletableFuture<PublishResult> two = publisher.publish(message("two"));
    FakeChannel ch = connection.last();
    ch.connectionLost();
    assertThat(one.get().failure()).isEqualTo(Failure.CONNECTION);
    assertThat(two.get().failure()).isEqualTo(Failure.CONNECTION);
    assertThat(one.get().aboutTheMessage()).isFalse();

    PublishResult during = publisher.publish(message("during")).get();
    assertThat(during.failure()).isEqualTo(Failure.CONNECTION);
    assertThat(connection.opened).as("no channel opened next to the one being recovered").hasSize(1);

    ch.recover();
    CompletableFuture<PublishResult> after = publisher.publish(message("after"));
    CompletableFuture<PublishResult> later = publisher.publish(message("later"));
    assertThat(ch.publishes).endsWith("ex after #1", "ex later #2");
    ch.ack(1, false);
    assertThat(after.get().confirmed()).isTrue();
    assertThat(later).isNotDone();
    assertThat(connection.opened).hasSize(1);
  }

  @Test
  void aChannelNotYetBackInConfirmModeIsNotPublishedOn() throws Exception {
    publisher.publish(message("first"));
    FakeChannel ch = connection.last();
    ch.nextSeq = 0; // recovered delegate before confirm.select is replayed
    PublishResult r = publisher.publish(message("x")).get();
    assertThat(r.failure()).isEqualTo(Failure.CONNECTION);
    assertThat(ch.publishes).containsExactly("ex first #1");
  }

  @Test
  void aMessageTheClientCannotEncodeFailsAloneAndLeavesNothingBehind() throws Exception {
    publisher.publish(message("ok"));
    FakeChannel ch = connection.last();
    ch.failNextPublish = new IllegalArgumentException("Invalid value in table");
    PublishResult r = publisher.publish(message("bad")).get();
    assertThat(r.failure()).isEqualTo(Failure.REJECTED_BY_CLIENT);
    assertThat(r.aboutTheMessage()).isTrue();
    assertThat(publisher.pending()).isEqualTo(1);
  }

  @Test
  void aConfirmThatNeverComesTimesOut() {
    try (ConfirmedPublisher quick = new ConfirmedPublisher(connection.proxy(), "quick", Duration.ofMillis(200))) {
      CompletableFuture<PublishResult> f = quick.publish(message("lost"));
      await().atMost(Duration.ofSeconds(5)).until(f::isDone);
      assertThat(f.join().failure()).isEqualTo(Failure.TIMEOUT);
      assertThat(quick.pending()).isZero();
    }
  }

  @Test
  void closingFailsWhatWaits() throws Exception {
    CompletableFuture<PublishResult> f = publisher.publish(message("a"));
    publisher.close();
    assertThat(f.get().failure()).isEqualTo(Failure.CLOSED);
    assertThat(publisher.publish(message("b")).get().failure()).isEqualTo(Failure.CLOSED);
  }
}
