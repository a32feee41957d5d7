package dev.baton.sandbox;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/** A fresh database on the real PostgreSQL for one test class; closing it drops the database. */
public final class PostgresDatabase implements AutoCloseable {

  private final String name;

  private PostgresDatabase(String name) {
    this.name = name;
  }

  /** Creates {@code <prefix>_<random>} (prefix: lowercase letters, digits and '_'). */
  public static PostgresDatabase create(String prefix) {
    String name = prefix + "_" + UUID.randomUUID().toString().substring(0, 8);
    admin("CREATE DATABASE " + name);
    return new PostgresDatabase(name);
  }

  public String name() {
    return name;
  }

  public String jdbcUrl() {
    return LocalServices.postgresUrl(name);
  }

  public String user() {
    return LocalServices.DATABASE_USERNAME;
  }

  public String password() {
    return LocalServices.DATABASE_PASSWORD;
  }

  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), user(), password());
  }

  @Override
  public void close() {
    admin("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  }

  private static void admin(String sql) {
    try (Connection c = DriverManager.getConnection(LocalServices.postgresUrl("postgres"),
            LocalServices.DATABASE_USERNAME, LocalServices.DATABASE_PASSWORD);
        Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("PostgreSQL at " + LocalServices.DATABASE_HOST + ":" + LocalServices.DATABASE_PORT
          + " refused: " + sql, e);
    }
  }
}
