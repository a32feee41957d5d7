package dev.baton.runtime.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Sends a {@link TransitionBatch}: one JDBC batch per kind of write, in an order the foreign keys accept. */
public final class TransitionWriter {

  private final InstanceStore instances;
  private final StepExecutionStore executions;
  private final OutboxStore outbox;

  public TransitionWriter(InstanceStore instances, StepExecutionStore executions, OutboxStore outbox) {
    this.instances = instances;
    this.executions = executions;
    this.outbox = outbox;
  }

  public void flush(Connection c, TransitionBatch batch) throws SQLException {
    executions.finish(c, batch.ends);
    if (!batch.dispatches.isEmpty()) {
      long[] ids = executions.allocateIds(c, batch.dispatches.size());
      executions.insertRunning(c, batch.dispatches, ids);
      outbox.insert(c, batch.dispatches.stream().map(TransitionBatch.Dispatch::command).toList());
      instances.markDispatched(c, batch.dispatches, ids);
    }
    instances.markFinished(c, batch.finishes);
  }
}
