package dev.baton.runtime.metrics;

import dev.baton.runtime.store.DatabaseSettings;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which one of the runtime replicas sharing a database exports the database-wide gauges ({@code baton_instances},
 * {@code baton_outbox_pending}, {@code baton_outbox_lag_seconds}): every replica reads the same totals, so if all
 * exported them, summing the pods' series would multiply them. The exporter is the replica holding a PostgreSQL
 * session advisory lock on a connection of its own (outside the pool); when its process or that connection dies the
 * server releases the lock, and another replica takes it at its next refresh. Asked once per refresh.
 */
public final class GaugeExporter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(GaugeExporter.class);
  /** Any fixed number; it names the lock (no other Baton lock is a session lock in this key space). */
  static final long LOCK_KEY = 0x6261746f6e4761L; // "batonGa"
  private static final int VALID_SECONDS = 2;

  private final DatabaseSettings database;
  private Connection connection;
  private boolean holding;

  public GaugeExporter(DatabaseSettings database) {
    this.database = database;
  }

  /** Whether this replica exports the database-wide gauges now; becomes the exporter when none is. */
  public synchronized boolean elected() {
    try {
      if (connection == null || !connection.isValid(VALID_SECONDS)) {
        if (holding) {
          LOG.info("Lost the database connection that made this replica export the database-wide gauges");
        }
        closeConnection();
        connection = DriverManager.getConnection(database.url(), database.user(),
            database.password() == null ? "" : database.password());
      }
      if (!holding) {
        try (PreparedStatement ps = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
          ps.setLong(1, LOCK_KEY);
          try (ResultSet rs = ps.executeQuery()) {
            holding = rs.next() && rs.getBoolean(1);
          }
        }
        if (holding) {
          LOG.info("This replica exports the database-wide gauges (baton_instances, baton_outbox_*)");
        }
      }
      return holding;
    } catch (SQLException e) {
      LOG.debug("Cannot tell whether this replica exports the database-wide gauges: {}", e.toString());
      closeConnection();
      return false;
    }
  }

  private void closeConnection() {
    holding = false;
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // gone already: the server released the lock with the session
      }
      connection = null;
    }
  }

  @Override
  public synchronized void close() {
    closeConnection();
  }
}
