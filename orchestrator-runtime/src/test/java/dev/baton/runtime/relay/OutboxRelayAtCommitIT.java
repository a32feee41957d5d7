package dev.baton.runtime.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.contract.Names;
import dev.baton.runtime.store.QueuedCommand;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The relay's fast path: a committing thread publishes its own commands when the relay is free. Every case of
 * {@link OutboxRelayIT} runs again with it on (one bad row, order, the hand-over under load, at least once with the
 * same message id); these are the cases that are its own.
 */
class OutboxRelayAtCommitIT extends OutboxRelayIT {

  @Override
  boolean publishAtCommit() {
    return true;
  }

  /** Fails on the code before: every command waited for the relay's thread to wake and take it from the hand. */
  @Test
  void commandsCommittedWhileTheRelayIsFreeArePublishedByTheCommittingThreadInOrderOnce() throws Exception {
    String canary = insert(Names.commandExchange(SERVICE), new byte[] {'{', '}'});
    startRelay(Duration.ofHours(1)); // no poll: only its first search, at start
    await().atMost(Duration.ofSeconds(10)).until(() -> received.contains(canary) && outboxRows() == 0);

    List<String> expected = new ArrayList<>(List.of(canary));
    for (int i = 0; i < 20; i++) {
      QueuedCommand q = queued(Names.commandExchange(SERVICE));
      relay.committed(List.of(q));
      expected.add(q.message().messageId().toString());
    }
    QueuedCommand withdrawn = queued(Names.commandExchange(SERVICE));
    try (java.sql.Connection c = postgres.connect(); var s = c.createStatement()) {
      s.execute("DELETE FROM outbox WHERE id = " + withdrawn.outboxId()); // as a cancel does, before the claim
    }
    relay.committed(List.of(withdrawn));

    await().atMost(Duration.ofSeconds(10)).until(() -> received.size() >= expected.size() && outboxRows() == 0);
    assertThat(received).as("in commit order, once each, the withdrawn one never").containsExactlyElementsOf(expected);
    assertThat(metrics.registry().find("baton.outbox.published.at.commit").counter())
        .as("published by the committing thread").isNotNull()
        .satisfies(c -> assertThat(c.count()).isPositive());
  }

  /** A commit of many commands (a batch of starts) is left to the relay: its thread answers its callers sooner. */
  @Test
  void aCommitOfMoreCommandsThanTheFastPathTakesIsPublishedByTheRelayInOrder() throws Exception {
    startRelay(Duration.ofHours(1));
    List<QueuedCommand> many = new ArrayList<>();
    for (int i = 0; i <= OutboxRelay.MAX_AT_COMMIT; i++) {
      many.add(queued(Names.commandExchange(SERVICE)));
    }
    relay.committed(many);

    await().atMost(Duration.ofSeconds(10)).until(() -> received.size() >= many.size() && outboxRows() == 0);
    assertThat(received).containsExactlyElementsOf(many.stream().map(q -> q.message().messageId().toString()).toList());
    assertThat(metrics.registry().find("baton.outbox.published.at.commit").counter()).as("none at commit").isNull();
  }

  /**
   * A cancel that withdraws a command being published at its commit waits for it, then finds it gone: it went out,
   * and the cancel does not count it as withdrawn (docs/design.md#runtime-semantics, "commands never outlive their
   * instance").
   */
  @Test
  void aWithdrawalWaitsForACommandBeingPublishedAtItsCommitAndDoesNotTakeItBack() throws Exception {
    String canary = startRelayBehindProxy();
    proxy.holdReplies(); // the broker's confirms are held back: the batch keeps its row locked

    QueuedCommand q = queued(Names.commandExchange(SERVICE));
    relay.committed(List.of(q));
    String id = q.message().messageId().toString();
    await("published at its commit").atMost(Duration.ofSeconds(10)).until(() -> received.contains(id));

    CompletableFuture<Integer> withdrawal = CompletableFuture.supplyAsync(() -> withdraw(q.outboxId()));
    await("the withdrawal waits for the row the publishing batch holds").atMost(Duration.ofSeconds(10))
        .until(this::aDeleteWaitsForALock);
    assertThat(withdrawal).isNotDone();

    proxy.releaseReplies();
    assertThat(withdrawal.get(10, java.util.concurrent.TimeUnit.SECONDS)).as("nothing left to withdraw: it went out")
        .isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> outboxRows() == 0);
    assertThat(received).containsExactly(canary, id);
  }

  /** One bad row among the commands of one commit: refused alone, the others published in order. */
  @Test
  void aCommandTheBrokerNacksAtItsCommitIsMarkedRefusedAndTheOthersOfTheCommitFlow() throws Exception {
    startRelay(Duration.ofHours(1));
    QueuedCommand before = queued(Names.commandExchange(SERVICE));
    QueuedCommand nacked = queued("relay.full.ex");
    QueuedCommand after = queued(Names.commandExchange(SERVICE));
    relay.committed(List.of(before, nacked, after));

    assertRefusedWhileTheOthersFlowInOrder(nacked.message().messageId().toString(),
        List.of(before.message().messageId().toString(), after.message().messageId().toString()),
        Duration.ofSeconds(30), "nack");
  }

  /**
   * Published at its commit, then the connection drops before the confirm: the row stays, and the relay sends the
   * command again with the same message id once the broker is back (at least once; workers dedupe).
   */
  @Test
  void aCommandPublishedAtItsCommitWhoseConfirmIsLostIsSentAgainWithTheSameMessageId() throws Exception {
    String canary = startRelayBehindProxy();
    proxy.holdReplies();
    QueuedCommand q = queued(Names.commandExchange(SERVICE));
    relay.committed(List.of(q));
    String id = q.message().messageId().toString();
    await("published at its commit").atMost(Duration.ofSeconds(10)).until(() -> received.contains(id));

    proxy.cut(); // the confirm is lost with the connection
    assertThat(outboxRows()).as("not confirmed: kept").isEqualTo(1);
    proxy.releaseReplies();
    proxy.restore();
    await().atMost(Duration.ofSeconds(30)).until(() -> received.stream().filter(id::equals).count() >= 2
        && outboxRows() == 0);
    assertThat(received).startsWith(canary, id);
  }

  private static int withdraw(long outboxId) {
    try (java.sql.Connection c = postgres.connect();
        PreparedStatement ps = c.prepareStatement("DELETE FROM outbox WHERE id = ?")) {
      ps.setLong(1, outboxId);
      return ps.executeUpdate();
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private boolean aDeleteWaitsForALock() throws Exception {
    try (java.sql.Connection c = postgres.connect(); PreparedStatement ps = c.prepareStatement(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM outbox%'");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }
}
