package dev.baton.runtime.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's PostgreSQL: a connection pool (which reconnects by itself after an outage), the schema migrated by
 * Flyway at start, and one way to run a transaction.
 */
public final class Database implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Database.class);
  private static final String MIGRATIONS = "classpath:dev/baton/runtime/db";

  private final HikariDataSource pool;

  private Database(HikariDataSource pool) {
    this.pool = pool;
  }

  /** Opens the pool (creating the database first if asked) and migrates the schema. */
  public static Database open(DatabaseSettings settings) {
    return open(settings, null);
  }

  /** As {@link #open(DatabaseSettings)}, with the pool's meters going to {@code meters} (null: nowhere). */
  public static Database open(DatabaseSettings settings, MetricsTrackerFactory meters) {
    if (settings.createDatabase()) {
      createIfMissing(settings);
    }
    HikariConfig config = new HikariConfig();
    config.setPoolName("baton-runtime");
    config.setJdbcUrl(settings.url());
    config.setUsername(settings.user());
    config.setPassword(settings.password());
    config.setMaximumPoolSize(settings.poolSize());
    config.setAutoCommit(false);
    // Short waits: a lane that cannot get a connection keeps its events unacked and retries, /healthz answers fast.
    config.setConnectionTimeout(Duration.ofSeconds(3).toMillis());
    config.setValidationTimeout(Duration.ofSeconds(2).toMillis());
    config.addDataSourceProperty("ApplicationName", "baton-runtime");
    // Lets a batch of inserts travel as one multi-row statement (outbox, processed events).
    config.addDataSourceProperty("reWriteBatchedInserts", "true");
    if (meters != null) {
      config.setMetricsTrackerFactory(meters);
    }
    HikariDataSource pool = new HikariDataSource(config);
    try {
      Flyway.configure().dataSource(pool).locations(MIGRATIONS).table("baton_schema_history").load().migrate();
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
    LOG.info("Database {} ready (schema migrated)", withoutQuery(settings.url()));
    return new Database(pool);
  }

  public DataSource dataSource() {
    return pool;
  }

  /** Runs {@code work} in one transaction: committed when it returns, rolled back when it throws. */
  public <T> T inTransaction(TransactionWork<T> work) throws SQLException {
    try (Connection c = pool.getConnection()) {
      try {
        T result = work.run(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException | Error e) {
        rollbackQuietly(c, e);
        throw e;
      }
    }
  }

  /**
   * Put in front of the first statement of each hot transaction (the step loop's batches and the starts' groups, see
   * {@link #inHotTransaction}): their statements then run on their generic plans for the rest of the transaction, and
   * the setting costs no round trip of its own, since it travels with that statement.
   *
   * <p>These statements are prepared once per connection and run thousands of times a second. Left to choose,
   * PostgreSQL plans most of them afresh on every run (a generic plan cannot see how short the arrays are, and looks
   * dearer than a custom one): measured at half load, planning took 40% of the transition statement's time. Their
   * generic plans are the ones wanted (primary key and instance_id lookups, see TransitionWriter), so these
   * transactions use them. Only these: the reads whose best plan depends on their values (the API's lists, the
   * retention purge) keep PostgreSQL's choice; forced generic, a million finished instances slowed them tenfold. The
   * setting is LOCAL: it ends with the transaction, committed or not.
   */
  public static final String GENERIC_PLANS = "SET LOCAL plan_cache_mode = force_generic_plan; ";

  /** How long a transaction's work took (connection included), then its commit. */
  @FunctionalInterface
  public interface Timing {
    void took(long workNanos, long commitNanos);
  }

  /**
   * {@link #inTransaction(TransactionWork)} for the hot paths, the step loop's batches and the starts' groups, telling
   * {@code timing} where its time went once it committed. Their first statement carries {@link #GENERIC_PLANS}.
   */
  public <T> T inHotTransaction(TransactionWork<T> work, Timing timing) throws SQLException {
    long begin = System.nanoTime();
    long[] worked = new long[1];
    T result = inTransaction(c -> {
      T r = work.run(c);
      worked[0] = System.nanoTime();
      return r;
    });
    timing.took(worked[0] - begin, System.nanoTime() - worked[0]);
    return result;
  }

  /** A cheap round trip, for /healthz. */
  public boolean isReachable() {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.setQueryTimeout(2);
      s.execute("SELECT 1");
      c.rollback();
      return true;
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() {
    pool.close();
  }

  private static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  /** {@code baton dev}: the database is created on first use, so a fresh PostgreSQL works as is. */
  private static void createIfMissing(DatabaseSettings settings) {
    try (Connection ignored = DriverManager.getConnection(settings.url(), settings.user(), settings.password())) {
      return; // it exists: no need to reach the maintenance database (managed servers often refuse that)
    } catch (SQLException e) {
      if (!"3D000".equals(e.getSQLState())) {
        return; // not "no such database": opening the pool reports it
      }
    }
    JdbcUrl url = JdbcUrl.parse(settings.url());
    if (!url.database().matches("[A-Za-z_][A-Za-z0-9_$-]*")) {
      throw new IllegalArgumentException("cannot create database '" + url.database()
          + "': use letters, digits, '_', '$' or '-' (or create it yourself and turn creation off)");
    }
    try (Connection c = DriverManager.getConnection(url.withDatabase("postgres"), settings.user(), settings.password())) {
      try (PreparedStatement q = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
        q.setString(1, url.database());
        try (ResultSet rs = q.executeQuery()) {
          if (rs.next()) {
            return;
          }
        }
      }
      try (Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE \"" + url.database() + "\"");
        LOG.info("Created database {}", url.database());
      }
    } catch (SQLException e) {
      if ("42P04".equals(e.getSQLState())) {
        return; // another replica created it first
      }
      throw new IllegalStateException("cannot create database " + url.database() + " at " + url.hostAndPort(), e);
    }
  }

  /** The URL without its query, which may carry a password. */
  static String withoutQuery(String jdbcUrl) {
    int q = jdbcUrl.indexOf('?');
    return q < 0 ? jdbcUrl : jdbcUrl.substring(0, q);
  }

  /** The parts of {@code jdbc:postgresql://host:port/database?query} that database creation needs. */
  record JdbcUrl(String prefix, String database, String query) {

    static JdbcUrl parse(String jdbcUrl) {
      String plain = withoutQuery(jdbcUrl);
      String query = jdbcUrl.substring(plain.length());
      int slash = plain.lastIndexOf('/');
      if (!plain.startsWith("jdbc:postgresql://") || slash < "jdbc:postgresql://".length()) {
        throw new IllegalArgumentException("not a PostgreSQL JDBC URL with a database: " + plain);
      }
      return new JdbcUrl(plain.substring(0, slash + 1), plain.substring(slash + 1), query);
    }

    String withDatabase(String other) {
      return prefix + other + query;
    }

    String hostAndPort() {
      return URI.create(prefix.substring("jdbc:".length())).getAuthority();
    }
  }
}
