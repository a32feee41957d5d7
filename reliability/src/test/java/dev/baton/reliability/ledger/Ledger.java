package dev.baton.reliability.ledger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.worker.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The test workers' ledger: one row per step effect ({@code effect}), written in the same transaction as the
 * worker's idempotency record (the worker SDK's {@link JdbcIdempotencyStore}, table {@value #PROCESSED}), in a
 * database that survives worker restarts, with its time and its command's deadline. Counting effects per (instance,
 * step, action) is how "applied twice" is measured; the history checker reads them all. Commands the SDK answered
 * {@code expired} are kept apart ({@code expired_answer}).
 */
public final class Ledger implements AutoCloseable {

  /** The idempotency store's table. */
  static final String PROCESSED = "processed_message";

  private final HikariDataSource pool;

  public Ledger(String jdbcUrl, String user, String password, int poolSize) {
    HikariConfig c = new HikariConfig();
    c.setJdbcUrl(jdbcUrl);
    c.setUsername(user);
    c.setPassword(password);
    c.setMaximumPoolSize(poolSize);
    c.setPoolName("ledger");
    c.setConnectionTimeout(5_000);
    pool = new HikariDataSource(c);
  }

  public DataSource dataSource() {
    return pool;
  }

  public void createSchema() {
    exec("CREATE TABLE IF NOT EXISTS effect (id bigserial PRIMARY KEY, instance_id text NOT NULL, step text NOT NULL,"
        + " action text NOT NULL, attempt int NOT NULL, message_id text NOT NULL, service text NOT NULL,"
        + " worker text NOT NULL, deadline timestamptz, at timestamptz NOT NULL DEFAULT clock_timestamp())");
    exec("CREATE TABLE IF NOT EXISTS expired_answer (message_id text NOT NULL, command text NOT NULL,"
        + " late_ms bigint NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp())");
    exec(JdbcIdempotencyStore.createTableSql(PROCESSED));
  }

  /** Effects applied more than once for the same (instance, step, action). */
  public long appliedTwice() {
    return count("SELECT count(*) FROM (SELECT 1 FROM effect GROUP BY instance_id, step, action HAVING count(*) > 1) t");
  }

  public long effects() {
    return count("SELECT count(*) FROM effect");
  }

  /** instance id → number of distinct (step, action) effects. */
  public Map<String, Integer> effectsPerInstance() {
    Map<String, Integer> m = new HashMap<>();
    try (Connection c = pool.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT instance_id, count(DISTINCT (step, action)) FROM effect GROUP BY 1")) {
      while (rs.next()) {
        m.put(rs.getString(1), rs.getInt(2));
      }
      return m;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  public long count(String sql) {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void exec(String sql) {
    try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The idempotency store in the ledger database. */
  public JdbcIdempotencyStore idempotencyStore() {
    return new JdbcIdempotencyStore(pool, PROCESSED);
  }

  /**
   * Records an effect through {@code c}, in the transaction that also records the message's outcome (the store's
   * {@code transactional} handler commits both, or rolls the effect back when a duplicate recorded first). Its time
   * ({@code at}) is the database's clock when the row is written, not the transaction's start.
   */
  static void recordEffect(Connection c, String instance, String step, String action, int attempt, String messageId,
      String service, String worker, Instant deadline) throws SQLException {
    try (PreparedStatement e = c.prepareStatement("INSERT INTO effect (instance_id, step, action, attempt, message_id,"
        + " service, worker, deadline) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      e.setString(1, instance);
      e.setString(2, step);
      e.setString(3, action);
      e.setInt(4, attempt);
      e.setString(5, messageId);
      e.setString(6, service);
      e.setString(7, worker);
      e.setObject(8, deadline == null ? null : OffsetDateTime.ofInstant(deadline, ZoneOffset.UTC));
      e.executeUpdate();
    }
  }

  /**
   * Whether the database's clock is still before {@code deadline}, read as the transaction's last statement before
   * the idempotency record and the commit: a careful worker commits a forward effect only then, so that no effect
   * lands once the runtime may have timed the attempt out (and compensated or re-sent it).
   */
  static boolean beforeDeadline(Connection c, Instant deadline) throws SQLException {
    try (PreparedStatement s = c.prepareStatement("SELECT clock_timestamp() < ?")) {
      s.setObject(1, OffsetDateTime.ofInstant(deadline, ZoneOffset.UTC));
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }

  /** A command the SDK answered {@code expired} (it never ran its handler): for the counts, not for the rules. */
  public void recordExpired(String messageId, String command, Duration late) {
    try (Connection c = pool.getConnection(); PreparedStatement s = c.prepareStatement(
        "INSERT INTO expired_answer (message_id, command, late_ms) VALUES (?, ?, ?)")) {
      s.setString(1, messageId);
      s.setString(2, command);
      s.setLong(3, late.toMillis());
      s.executeUpdate();
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
