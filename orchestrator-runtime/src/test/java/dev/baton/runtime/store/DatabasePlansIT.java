package dev.baton.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.sandbox.Sandbox;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Which transactions plan their prepared statements once (see {@link Database#GENERIC_PLANS}). */
class DatabasePlansIT {

  static Sandbox infrastructure;
  static Database database;

  @BeforeAll
  static void infrastructure() {
    infrastructure = Sandbox.builder("plans").database().start();
    database = TestDatabases.open(infrastructure, 2);
  }

  @AfterAll
  static void close() {
    infrastructure.close();
  }

  @Test
  void theHotPathsTransactionsUseGenericPlansAndTheOthersKeepPostgresChoice() throws SQLException {
    InstanceStore instances = new InstanceStore();
    long[] timed = new long[2];
    // The step loop's batches open with the lock, the starts' groups with the insert: each carries the setting.
    String inBatch = database.inHotTransaction(c -> {
      instances.lockAllWithSteps(c, List.of(UUID.randomUUID()));
      return planCacheMode(c);
    }, (work, commit) -> {
      timed[0] = work;
      timed[1] = commit;
    });
    assertThat(inBatch).isEqualTo("force_generic_plan");
    assertThat(timed[0]).as("the work's time").isPositive();
    String inStarts = database.inHotTransaction(c -> {
      instances.insertAllAbsent(c, List.of());
      return planCacheMode(c);
    }, (work, commit) -> { });
    assertThat(inStarts).isEqualTo("force_generic_plan");
    // The setting ended with the transaction (Flyway needs two connections: the pool has two, set alike).
    assertThat(database.inTransaction(DatabasePlansIT::planCacheMode)).isEqualTo("auto");
    assertThat(database.inTransaction(DatabasePlansIT::planCacheMode)).isEqualTo("auto");
  }

  private static String planCacheMode(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW plan_cache_mode")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
