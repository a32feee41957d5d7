package dev.baton.runtime.timeouts;

import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.engine.Decision;
import dev.baton.runtime.engine.OutboxSignal;
import dev.baton.runtime.engine.TransitionApplier;
import dev.baton.runtime.engine.Transitions;
import dev.baton.runtime.engine.WorkflowDefinition;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.TransitionBatch;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Step timeouts from the database (docs/design.md#runtime-semantics): each sweep claims instances whose {@code step_deadline} has passed,
 * with {@code FOR UPDATE SKIP LOCKED} so replicas and the step loop never wait on each other, and applies the timeout
 * decision (send again, or fail with reason Timeout). Deadlines are rows, not timers, so they survive restarts.
 */
public final class TimeoutSweeper implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(TimeoutSweeper.class);

  private final Database database;
  private final InstanceStore instances;
  private final DefinitionCatalog definitions;
  private final TransitionApplier applier;
  private final OutboxSignal outboxSignal;
  private final RuntimeMetrics metrics;
  private final int batchSize;

  public TimeoutSweeper(Database database, InstanceStore instances, DefinitionCatalog definitions,
      TransitionApplier applier, OutboxSignal outboxSignal, RuntimeMetrics metrics, int batchSize) {
    this.database = database;
    this.instances = instances;
    this.definitions = definitions;
    this.applier = applier;
    this.outboxSignal = outboxSignal;
    this.metrics = metrics;
    this.batchSize = batchSize;
  }

  /** Sweeps until no due instance is left (each batch its own transaction). */
  @Override
  public void run() {
    try {
      int n;
      do {
        n = sweepOnce();
      } while (n >= batchSize);
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Timeout sweep failed, trying again at the next poll: {}", e.toString());
    }
  }

  int sweepOnce() throws SQLException {
    List<String> timedOut = new ArrayList<>();
    boolean[] dispatched = {false};
    int claimed = database.inTransaction(c -> {
      List<InstanceRecord> due = instances.claimDue(c, batchSize);
      TransitionBatch batch = new TransitionBatch();
      for (InstanceRecord instance : due) {
        WorkflowDefinition definition =
            definitions.pinned(c, instance.namespace(), instance.workflow(), instance.revision());
        if (Transitions.onTimeout(definition, instance.state()) instanceof Decision.Change change) {
          dispatched[0] |= applier.plan(batch, instance, definition, change, null).dispatched();
          timedOut.add(instance.workflow());
          LOG.info("Instance {} step {} attempt {} timed out: {}", instance.id(), instance.stepName(),
              instance.attempt(), change.next());
        }
      }
      applier.flush(c, batch);
      return due.size();
    });
    if (dispatched[0]) {
      outboxSignal.commandsWritten();
    }
    timedOut.forEach(metrics::stepTimedOut);
    return claimed;
  }
}
