package dev.baton.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.TestStack;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OutboxStoreIT {

  static TestStack infrastructure;
  static Database database;
  final OutboxStore outbox = new OutboxStore();

  @BeforeAll
  static void infrastructure() {
    infrastructure = TestStack.builder("outbox-store").database().start();
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
