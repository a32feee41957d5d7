package dev.baton.reliability.ledger;

import dev.baton.worker.IdempotencyStore;
import dev.baton.worker.Outcome;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/** The worker SDK's idempotency store in the ledger database: it survives worker restarts (and SIGKILL). */
final class JdbcIdempotencyStore implements IdempotencyStore {

  private final DataSource ds;

  JdbcIdempotencyStore(DataSource ds) {
    this.ds = ds;
  }

  @Override
  public Optional<Outcome> find(String key) {
    try (Connection c = ds.getConnection();
        PreparedStatement s = c.prepareStatement("SELECT outcome FROM processed_message WHERE message_id = ?")) {
      s.setString(1, key);
      try (ResultSet r = s.executeQuery()) {
        return r.next() ? Optional.of(Outcome.fromJson(r.getString(1))) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("idempotency store unavailable: " + e.getMessage(), e);
    }
  }

  @Override
  public void remember(String key, Outcome outcome) {
    try (Connection c = ds.getConnection(); PreparedStatement s = c.prepareStatement(
        "INSERT INTO processed_message VALUES (?, ?) ON CONFLICT (message_id) DO NOTHING")) {
      s.setString(1, key);
      s.setString(2, outcome.toJson());
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("idempotency store unavailable: " + e.getMessage(), e);
    }
  }
}
