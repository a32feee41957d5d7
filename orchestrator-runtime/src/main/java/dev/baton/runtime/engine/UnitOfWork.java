package dev.baton.runtime.engine;

import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.QueuedCommand;
import dev.baton.runtime.store.TransitionWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The one way instances change (docs/design.md#runtime-semantics, "No lost commands"): one transaction, and only once
 * it has committed are the commands it wrote to the outbox handed to the relay, which publishes them at once instead
 * of at its next poll. A transaction that rolls back hands over nothing: its outbox rows never existed. Starts, the
 * step loop's batches, cancels, retries, signals and timers all go through here.
 */
public final class UnitOfWork {

  private final Database database;
  private final OutboxSignal relay;
  private final InstanceEndings endings;

  public UnitOfWork(Database database, OutboxSignal relay) {
    this(database, relay, new InstanceEndings());
  }

  /** @param endings told, once a transaction has committed, which instances it ended */
  public UnitOfWork(Database database, OutboxSignal relay, InstanceEndings endings) {
    this.database = database;
    this.relay = relay;
    this.endings = endings;
  }

  /** What a piece of work runs in: its connection, and the commands it queued, kept for the relay until the commit. */
  public static final class Transaction {

    private final Connection connection;
    private final List<QueuedCommand> queued = new ArrayList<>();
    private final List<UUID> ended = new ArrayList<>();

    private Transaction(Connection connection) {
      this.connection = connection;
    }

    public Connection connection() {
      return connection;
    }

    /** Commands this transaction wrote to the outbox: the relay gets them once the transaction has committed. */
    public void queued(List<QueuedCommand> commands) {
      queued.addAll(commands);
    }

    /** What a write did: its commands go to the relay, and the instances it ended are told, after the commit. */
    public void wrote(TransitionWriter.Written written) {
      queued.addAll(written.queued());
      ended.addAll(written.ended());
    }
  }

  /** Work done inside one transaction; the unit of work commits or rolls back. */
  @FunctionalInterface
  public interface Work<T> {
    T run(Transaction tx) throws SQLException;
  }

  /** Runs {@code work} in one transaction, then hands what it queued to the relay. */
  public <T> T run(Work<T> work) throws SQLException {
    Transaction[] tx = new Transaction[1];
    T result = database.inTransaction(c -> work.run(tx[0] = new Transaction(c)));
    relay.committed(tx[0].queued);
    endings.ended(tx[0].ended);
    return result;
  }

  /** {@link #run} for the hot paths (the step loop's batches, the starts' groups): see {@link Database#inHotTransaction}. */
  public <T> T runHot(Work<T> work, Database.Timing timing) throws SQLException {
    Transaction[] tx = new Transaction[1];
    T result = database.inHotTransaction(c -> work.run(tx[0] = new Transaction(c)), timing);
    relay.committed(tx[0].queued);
    endings.ended(tx[0].ended);
    return result;
  }
}
