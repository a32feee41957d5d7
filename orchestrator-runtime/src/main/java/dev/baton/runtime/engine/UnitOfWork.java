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
  private final ChildWakeups wakeups;

  public UnitOfWork(Database database, OutboxSignal relay) {
    this(database, relay, new InstanceEndings(), new ChildWakeups());
  }

  /**
   * @param endings told, once a transaction has committed, which instances it ended
   * @param wakeups told, once a transaction has committed, which parents' child workflow steps it moved
   */
  public UnitOfWork(Database database, OutboxSignal relay, InstanceEndings endings, ChildWakeups wakeups) {
    this.database = database;
    this.relay = relay;
    this.endings = endings;
    this.wakeups = wakeups;
  }

  /** What a piece of work runs in: its connection, and the commands it queued, kept for the relay until the commit. */
  public static final class Transaction {

    private final Connection connection;
    private final List<QueuedCommand> queued = new ArrayList<>();
    private final List<UUID> ended = new ArrayList<>();
    private final java.util.Set<UUID> parents = new java.util.LinkedHashSet<>();

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

    /** A parent whose child workflow steps this transaction moved: driven once it has committed. */
    public void wake(UUID parent) {
      parents.add(parent);
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
    committed(tx[0]);
    return result;
  }

  /** {@link #run} for the hot paths (the step loop's batches, the starts' groups): see {@link Database#inHotTransaction}. */
  public <T> T runHot(Work<T> work, Database.Timing timing) throws SQLException {
    Transaction[] tx = new Transaction[1];
    T result = database.inHotTransaction(c -> work.run(tx[0] = new Transaction(c)), timing);
    committed(tx[0]);
    return result;
  }

  private void committed(Transaction tx) {
    relay.committed(tx.queued);
    endings.ended(tx.ended);
    wakeups.wake(tx.parents);
  }
}
