package dev.baton.runtime.store;

import dev.baton.sandbox.PostgresDatabase;
import dev.baton.sandbox.Sandbox;

/** The runtime's {@link Database} (pool, Flyway schema) on a test stack's fresh database, closed with the stack. */
public final class TestDatabases {

  private TestDatabases() {}

  public static Database open(Sandbox stack, int poolSize) {
    PostgresDatabase postgres = stack.database();
    return stack.own(Database.open(
        new DatabaseSettings(postgres.jdbcUrl(), postgres.user(), postgres.password(), false, poolSize)));
  }
}
