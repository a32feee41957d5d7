package dev.baton.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.sandbox.Sandbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OutboxStoreIT {

  static Sandbox infrastructure;
  static Database database;
  final OutboxStore outbox = new OutboxStore();

  @BeforeAll
  static void infrastructure() {
    infrastructure = Sandbox.builder("outbox-store").database().start();
    database = TestDatabases.open(infrastructure, 2);
  }

  @AfterAll
  static void close() {
    infrastructure.close();
  }

  @Test
  void confirmedRowsAreDeletedAndOnlyThatTransactionCommitsWithoutWaitingForTheDisk() throws SQLException {
    long first = insertRow();
    long second = insertRow();
    String during = database.inTransaction(c -> {
      outbox.confirmed(c, List.of(first));
      return setting(c);
    });
    assertThat(during).isEqualTo("off");
    assertThat(remaining()).contains(second).doesNotContain(first);
    String after = database.inTransaction(OutboxStoreIT::setting);
    assertThat(after).isEqualTo("on");
  }

  @Test
  void aBatchWithNothingConfirmedStillCommitsWithoutWaitingForTheDisk() throws SQLException {
    long kept = insertRow();
    String during = database.inTransaction(c -> {
      outbox.confirmed(c, List.of());
      return setting(c);
    });
    assertThat(during).isEqualTo("off");
    assertThat(remaining()).contains(kept);
  }

  @Test
  void claimingByIdLocksOnlyTheRowsStillThereDueAndFree() throws Exception {
    long due = insertRow();
    long setAside = insertRow();
    long gone = insertRow();
    long heldElsewhere = insertRow();
    database.inTransaction(c -> {
      outbox.defer(c, List.of(setAside), "no queue bound");
      outbox.confirmed(c, List.of(gone));
      return null;
    });
    try (Connection other = infrastructure.database().connect()) {
      other.setAutoCommit(false);
      try (Statement s = other.createStatement()) {
        s.execute("SELECT id FROM outbox WHERE id = " + heldElsewhere + " FOR UPDATE");
      }
      Set<Long> claimed = database.inTransaction(c -> outbox.claimById(c, List.of(due, setAside, gone, heldElsewhere)));
      assertThat(claimed).containsExactly(due);
      other.rollback();
    }
  }

  /**
   * The relay adds the commands handed over while its batches wait for confirms to the newest one, whose transaction
   * began before those commands were committed: they are due all the same.
   */
  @Test
  void claimingByIdInATransactionBegunBeforeTheRowsWereCommittedStillFindsThemDue() throws SQLException {
    long[] later = new long[1];
    Set<Long> claimed = database.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_sleep(0.05)"); // the transaction's now() is taken here, before the row exists
      }
      later[0] = insertRow(); // committed on another connection
      return outbox.claimById(c, List.of(later[0]));
    });
    assertThat(claimed).as("the row committed after the claiming transaction began").containsExactly(later[0]);
  }

  /**
   * The relay claims the commands it is handed by id: a lookup per row, however many rows the outbox has seen come
   * and go since its last vacuum. Searching it in id order (the relay's poll) walks the index entries of every row
   * deleted since, which under load are thousands a second.
   */
  @Test
  void claimingByIdReadsAFewPagesWhateverTheOutboxChurnedSinceItsLastVacuum() throws SQLException {
    database.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute("ALTER TABLE outbox SET (autovacuum_enabled = false)"); // the churn stays, whatever the server does
        s.execute("INSERT INTO outbox (message_id, exchange, routing_key, correlation_id, headers, body)"
            + " SELECT gen_random_uuid(), 'x.command.topic.ex', 'k', 'c', '{}', '\\x7b7d' FROM generate_series(1, 20000)");
        s.execute("DELETE FROM outbox");
      }
      return null;
    });
    List<Long> fresh = List.of(insertRow(), insertRow(), insertRow());
    long byId = database.inTransaction(c -> {
      long before = blocksRead(c);
      assertThat(outbox.claimById(c, fresh)).containsExactlyInAnyOrderElementsOf(fresh);
      return blocksRead(c) - before;
    });
    long searching = database.inTransaction(c -> {
      long before = blocksRead(c);
      assertThat(outbox.claim(c, 3)).extracting(OutboxRow::id).containsExactlyElementsOf(fresh);
      return blocksRead(c) - before;
    });
    assertThat(byId).as("pages read claiming 3 rows by id").isLessThan(20);
    assertThat(searching).as("pages read finding the same 3 rows by searching (the churn is there)")
        .isGreaterThan(10 * byId);
  }

  /** Pages of the outbox and its primary key read so far in this transaction (from the buffers or the disk). */
  @Test
  void aCommandReturnedUnroutableCountsAsRefusedOnlyOnceItHasBeenUnroutableForTheWholeGrace() throws SQLException {
    long fresh = insertRow();
    long longUnroutable = insertRow();
    database.inTransaction(c -> outbox.deferUnroutable(c, List.of(fresh, longUnroutable), "no queue bound",
        Duration.ofSeconds(30)));
    execute("UPDATE outbox SET unroutable_since = now() - interval '31 seconds', next_attempt_at = now()"
        + " WHERE id = " + longUnroutable);

    Set<Long> overdue = database.inTransaction(c -> outbox.deferUnroutable(c, List.of(fresh, longUnroutable),
        "no queue bound", Duration.ofSeconds(30)));

    assertThat(overdue).containsExactly(longUnroutable);
  }

  @Test
  void aRefusedRowIsNeverClaimedAgainAndIsTakenOnceWithItsReason() throws SQLException {
    long refused = insertRow();
    database.inTransaction(c -> {
      outbox.refuse(c, List.of(refused), "403 ACCESS_REFUSED");
      return null;
    });

    List<OutboxRow> claimed = database.inTransaction(c -> outbox.claim(c, 1000));
    Set<Long> claimedById = database.inTransaction(c -> outbox.claimById(c, List.of(refused)));
    assertThat(claimed).noneMatch(r -> r.id() == refused);
    assertThat(claimedById).isEmpty();
    List<RefusedCommand> found = database.inTransaction(c -> outbox.refused(c, 10));
    assertThat(found).extracting(RefusedCommand::outboxId).containsExactly(refused);
    assertThat(found.get(0).reason()).isEqualTo("403 ACCESS_REFUSED");
    assertThat(found.get(0).errorCode()).isEqualTo("CommandRefused");
    boolean taken = database.inTransaction(c -> outbox.takeRefused(c, refused));
    boolean takenAgain = database.inTransaction(c -> outbox.takeRefused(c, refused));
    assertThat(taken).isTrue();
    assertThat(takenAgain).as("gone once taken").isFalse();
  }

  @Test
  void aRefusalOverTheBrokersMaxMessageSizeIsPayloadTooLargeAndNamesTheLimit() {
    String reason = "the broker refused the command: 406 PRECONDITION_FAILED - message size 409832 is larger than"
        + " configured max size 262144";
    RefusedCommand r = new RefusedCommand(1, UUID.randomUUID(), UUID.randomUUID(), reason);
    assertThat(r.errorCode()).isEqualTo("PayloadTooLarge");
    assertThat(RefusedCommand.brokerMaxSize(reason)).hasValue(262144);
    assertThat(RefusedCommand.brokerMaxSize("406 PRECONDITION_FAILED - message size 9 is larger than max size 8"))
        .hasValue(8);
    assertThat(RefusedCommand.brokerMaxSize("403 ACCESS_REFUSED")).isEmpty();
  }

  @Test
  void aCommandInDoubtIsWithdrawnButNotReportedAsNeverSentAndIsNotDueMeanwhile() throws SQLException {
    UUID instance = UUID.randomUUID();
    UUID unsent = UUID.randomUUID();
    UUID published = UUID.randomUUID();
    insertRow(instance, unsent);
    long inDoubt = insertRow(instance, published);
    database.inTransaction(c -> {
      outbox.inDoubt(c, List.of(inDoubt), Duration.ofSeconds(30));
      return null;
    });
    Set<Long> claimedMeanwhile = database.inTransaction(c -> outbox.claimById(c, List.of(inDoubt)));
    assertThat(claimedMeanwhile).as("not due while its confirm may come").isEmpty();

    Set<UUID> withdrawn = database.inTransaction(c -> outbox.withdrawAll(c, instance));

    assertThat(withdrawn).containsExactly(unsent);
    assertThat(remaining()).doesNotContain(inDoubt);
  }

  private static void execute(String sql) throws SQLException {
    database.inTransaction(c -> {
      try (Statement s = c.createStatement()) {
        s.execute(sql);
      }
      return null;
    });
  }

  private static long insertRow(UUID instance, UUID messageId) throws SQLException {
    return database.inTransaction(c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (message_id, exchange, routing_key,"
          + " correlation_id, headers, body, instance_id) VALUES (?, 'x.command.topic.ex', 'k', ?, '{}', ?, ?)"
          + " RETURNING id")) {
        ps.setObject(1, messageId);
        ps.setString(2, instance.toString());
        ps.setBytes(3, new byte[] {'{', '}'});
        ps.setObject(4, instance);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    });
  }

  private static long blocksRead(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT pg_stat_get_xact_blocks_fetched('outbox'::regclass)"
            + " + pg_stat_get_xact_blocks_fetched('outbox_pkey'::regclass)")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static long insertRow() throws SQLException {
    return database.inTransaction(c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (message_id, exchange, routing_key,"
          + " correlation_id, headers, body) VALUES (?, 'x.command.topic.ex', 'k', 'c', '{}', ?) RETURNING id")) {
        ps.setObject(1, UUID.randomUUID());
        ps.setBytes(2, new byte[] {'{', '}'});
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getLong(1);
        }
      }
    });
  }

  private static List<Long> remaining() throws SQLException {
    return database.inTransaction(c -> {
      List<Long> ids = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM outbox")) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
      return ids;
    });
  }

  private static String setting(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW synchronous_commit")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
