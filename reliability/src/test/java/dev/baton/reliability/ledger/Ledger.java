package dev.baton.reliability.ledger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.baton.worker.JdbcIdempotencyStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The test workers' ledger: one row per step effect ({@code effect}), written in the same transaction as the
 * worker's idempotency record (the worker SDK's {@link JdbcIdempotencyStore}, table {@value #PROCESSED}), in a
 * database that survives worker restarts. Counting effects per (instance, step, action) is how "applied twice" is
 * measured.
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
        + " worker text NOT NULL, at timestamptz NOT NULL DEFAULT now())");
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
   * {@code transactional} handler commits both, or rolls the effect back when a duplicate recorded first).
   */
  static void recordEffect(Connection c, String instance, String step, String action, int attempt, String messageId,
      String service, String worker) throws SQLException {
    try (PreparedStatement e = c.prepareStatement("INSERT INTO effect (instance_id, step, action, attempt, message_id,"
        + " service, worker) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      e.setString(1, instance);
      e.setString(2, step);
      e.setString(3, action);
      e.setInt(4, attempt);
      e.setString(5, messageId);
      e.setString(6, service);
      e.setString(7, worker);
      e.executeUpdate();
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
