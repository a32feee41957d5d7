package dev.baton.worker;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * An {@link IdempotencyStore} in your own database, for effects applied exactly once across worker crashes: the
 * outcome is recorded in the same transaction as the handler's effect, so either both commit or neither does. A
 * crash before the commit leaves nothing (the redelivered command runs again); a crash after it, before the ack,
 * leaves both (the redelivered command is answered from the store: its event is published again, the effect is not
 * repeated).
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = new JdbcIdempotencyStore(dataSource);   // table baton_processed_message
 * BatonWorker.builder().fromEnvironment()
 *     .idempotency(store)
 *     .command("pay", store.transactional((cmd, connection) -> {
 *       String paymentId = payments.charge(connection, cmd.inputAs(PayInput.class));   // the effect
 *       return CommandResult.success(Map.of("paymentId", paymentId));   // recorded in the same transaction
 *     }))
 *     .build();
 * }</pre>
 *
 * <p>The table ({@link #createTableSql}) is keyed by message id; the statements are PostgreSQL's ({@code INSERT ...
 * ON CONFLICT DO NOTHING}). Only {@code java.sql}: bring your own driver and pool. Thread-safe.
 */
public final class JdbcIdempotencyStore implements IdempotencyStore {

  public static final String DEFAULT_TABLE = "baton_processed_message";

  private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

  /** A handler whose effect is written through {@code connection}, inside the transaction that records its outcome. */
  @FunctionalInterface
  public interface TransactionalHandler {
    CommandResult handle(Command command, Connection connection) throws Exception;
  }

  private final DataSource dataSource;
  private final String find;
  private final String insert;

  /** In {@value #DEFAULT_TABLE}. */
  public JdbcIdempotencyStore(DataSource dataSource) {
    this(dataSource, DEFAULT_TABLE);
  }

  /** @param table the table's name, optionally with its schema ({@code app.processed_message}) */
  public JdbcIdempotencyStore(DataSource dataSource, String table) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    String t = checkedTable(table);
    this.find = "SELECT outcome FROM " + t + " WHERE message_id = ?";
    this.insert = "INSERT INTO " + t + " (message_id, outcome) VALUES (?, ?) ON CONFLICT (message_id) DO NOTHING";
  }

  /**
   * The table's DDL. {@code recorded_at} lets you delete old rows (the broker never redelivers a message older than
   * your longest retry staircase plus an outage, so a few days is plenty).
   */
  public static String createTableSql(String table) {
    return "CREATE TABLE IF NOT EXISTS " + checkedTable(table) + " (message_id varchar(512) PRIMARY KEY,"
        + " outcome text NOT NULL, recorded_at timestamp with time zone NOT NULL DEFAULT CURRENT_TIMESTAMP)";
  }

  /** Creates {@code table} if it does not exist (tests and quick starts; in production, your migrations). */
  public static void createTable(DataSource dataSource, String table) throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
      s.execute(createTableSql(table));
      if (!c.getAutoCommit()) {
        c.commit();
      }
    }
  }

  @Override
  public Optional<CommandResult> find(String key) {
    try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(find)) {
      s.setString(1, key);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(CommandResult.fromJson(r.getString(1))) : Optional.empty();
      }
    } catch (SQLException e) {
      // A technical failure for the SDK: the command is retried rather than risk running its effect twice.
      throw new IllegalStateException("the idempotency store cannot be read: " + e.getMessage(), e);
    }
  }

  /**
   * Records an outcome on a connection of its own; a key recorded already keeps its first outcome. After
   * {@link #transactional} or {@link #record}, the SDK's own call finds the row there and changes nothing.
   */
  @Override
  public void remember(String key, CommandResult outcome) {
    try (Connection c = dataSource.getConnection()) {
      record(c, key, outcome);
      if (!c.getAutoCommit()) {
        c.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("the idempotency store cannot be written: " + e.getMessage(), e);
    }
  }

  /**
   * Records the outcome through {@code connection}, in the caller's transaction (the caller commits).
   *
   * @return false when the key is recorded already: a duplicate of this command committed its effect first (the
   *     insert waited for it), so the caller must roll back its own effect
   */
  public boolean record(Connection connection, String key, CommandResult outcome) throws SQLException {
    try (PreparedStatement s = connection.prepareStatement(insert)) {
      s.setString(1, Objects.requireNonNull(key, "key"));
      s.setString(2, outcome.toJson());
      return s.executeUpdate() == 1;
    }
  }

  /**
   * A command handler that runs {@code work} and records its outcome in ONE transaction on a connection of the data
   * source: commit when both succeed, roll back when either fails (the command then fails technically and is
   * retried). When a duplicate of the command committed first, this one's effect is rolled back and the first
   * outcome is returned. A command without a message id is run without a record.
   */
  public CommandHandler transactional(TransactionalHandler work) {
    Objects.requireNonNull(work, "work");
    return command -> {
      String key = command.messageId();
      try (Connection c = dataSource.getConnection()) {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
          CommandResult result = work.handle(command, c);
          if (result == null) {
            throw new IllegalStateException("the handler of command " + command.name() + " returned no CommandResult");
          }
          if (key != null && !record(c, key, result)) {
            c.rollback();
            return find(key).orElseThrow(() -> new IllegalStateException("message_id " + key
                + " was recorded by a duplicate, but its outcome cannot be read back"));
          }
          c.commit();
          return result;
        } catch (Exception | Error e) {
          rollbackQuietly(c, e);
          throw e;
        } finally {
          try {
            c.setAutoCommit(autoCommit);
          } catch (SQLException ignored) {
            // a broken connection: the pool discards it
          }
        }
      }
    };
  }

  private static void rollbackQuietly(Connection c, Throwable cause) {
    try {
      c.rollback();
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  private static String checkedTable(String table) {
    if (table == null || !TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException("not a plain table name: '" + table + "' (letters, digits and _, with an "
          + "optional schema)");
    }
    return table;
  }
}
