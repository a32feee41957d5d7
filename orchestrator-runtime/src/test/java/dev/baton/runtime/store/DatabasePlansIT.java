package dev.baton.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testing.PostgresDatabase;
import dev.baton.testing.TestStack;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The runtime's connections plan its prepared statements once (see {@link Database#open}). */
class DatabasePlansIT {

  static TestStack infrastructure;
  static Database database;

  @BeforeAll
  static void infrastructure() {
    infrastructure = TestStack.builder("plans").database().start();
    PostgresDatabase postgres = infrastructure.database();
    database = infrastructure.own(
        Database.open(new DatabaseSettings(postgres.jdbcUrl(), postgres.user(), postgres.password(), false, 2)));
  }

  @AfterAll
  static void close() {
    infrastructure.close();
  }

  @Test
  void everyConnectionUsesGenericPlansEvenAfterATransactionWasRolledBack() throws SQLException {
    try (Connection c = database.dataSource().getConnection()) {
      assertThat(planCacheMode(c)).isEqualTo("force_generic_plan");
      c.rollback();
    }
    // Both connections of the pool, the one rolled back among them: a setting made by a SET would have gone with it.
    try (Connection a = database.dataSource().getConnection(); Connection b = database.dataSource().getConnection()) {
      assertThat(planCacheMode(a)).isEqualTo("force_generic_plan");
      assertThat(planCacheMode(b)).isEqualTo("force_generic_plan");
    }
  }

  private static String planCacheMode(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW plan_cache_mode")) {
      rs.next();
      return rs.getString(1);
    }
  }
}
