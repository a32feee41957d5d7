package dev.baton.runtime.timers;

import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.runtime.core.InstanceStatus;
import dev.baton.runtime.core.StepState;
import dev.baton.runtime.core.StepStatus;
import dev.baton.runtime.core.Stimulus;
import dev.baton.runtime.core.Transition;
import dev.baton.runtime.engine.Engine;
import dev.baton.runtime.engine.UnitOfWork;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.SqlErrors;
import dev.baton.runtime.store.StepStore;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Timers from the database (docs/design.md#runtime-semantics): step timeouts, delays and wait timeouts are the
 * deadlines of the steps in flight, and the whole instance's deadline ({@code spec.timeout}) is on its row, so they
 * survive restarts. Each sweep finds instances with a step past its deadline, or going forward past their own, and
 * handles each in its own transaction, on its row locked with {@code SKIP LOCKED} (replicas and the
 * step loop never wait on each other): one instance that cannot be handled never holds up the others' timers, and
 * one whose definition no longer loads fails with the reason instead of failing every sweep.
 */
public final class TimeoutSweeper implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(TimeoutSweeper.class);

  private final Database database;
  private final InstanceStore instances;
  private final StepStore steps;
  private final Engine engine;
  private final UnitOfWork unitOfWork;
  private final RuntimeMetrics metrics;
  private final int batchSize;

  public TimeoutSweeper(Database database, UnitOfWork unitOfWork, InstanceStore instances, StepStore steps,
      Engine engine, RuntimeMetrics metrics, int batchSize) {
    this.database = database;
    this.instances = instances;
    this.steps = steps;
    this.engine = engine;
    this.unitOfWork = unitOfWork;
    this.metrics = metrics;
    this.batchSize = batchSize;
  }

  /** Sweeps until no due instance is left that this sweep could handle. */
  @Override
  public void run() {
    try {
      int found;
      int handled;
      do {
        // Both searches in one transaction; an instance found by both is handled once (its lock decides how).
        List<List<UUID>> searched = database.inTransaction(c -> List.of(steps.instancesDue(c, batchSize),
            instances.instancesPastDeadline(c, batchSize)));
        found = Math.max(searched.get(0).size(), searched.get(1).size());
        java.util.Set<UUID> due = new java.util.LinkedHashSet<>(searched.get(1));
        due.addAll(searched.get(0));
        handled = 0;
        for (UUID id : due) {
          handled += handle(id) ? 1 : 0;
        }
      } while (found >= batchSize && handled > 0);
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Timer sweep failed, trying again at the next poll: {}", e.toString());
    }
  }

  /** @return whether the instance was moved */
  boolean handle(UUID id) {
    try (LogFields.Scope fields = LogFields.open(id.toString(), null, null, null)) {
      Engine.Applied applied = unitOfWork.run(tx -> {
        Optional<InstanceRecord> locked = instances.lockIfFree(tx.connection(), id);
        if (locked.isEmpty()) {
          return null; // another transaction holds it: the next sweep sees it again if it is still due
        }
        InstanceRecord instance = locked.get();
        // Going forward past its own deadline, the instance times out, whichever of its timers found it.
        boolean whole = instance.pastDeadline() && instance.status() == InstanceStatus.RUNNING;
        Engine.Applied done = engine.apply(tx, instance,
            whole ? new Stimulus.InstanceTimedOut() : new Stimulus.TimersDue());
        Transition moved = done.transition();
        if (moved.moved()) {
          try (LogFields.Scope more = LogFields.open(id.toString(), instance.workflow(), fired(moved.rows()),
              MessageTracing.traceIdOf(instance.traceparent()))) {
            if (whole) {
              LOG.info("Instance {}: past its deadline (spec.timeout), now {}", id, moved.status());
            } else {
              LOG.info("Instance {}: timer(s) due, now {}", id, moved.status());
            }
          }
          moved.rows().stream().filter(r -> r.status() == StepStatus.TIMED_OUT)
              .forEach(r -> metrics.stepTimedOut(locked.get().namespace(), locked.get().workflow()));
        }
        return done;
      });
      return applied != null && applied.transition().moved();
    } catch (SQLException | RuntimeException e) {
      if (SqlErrors.isTransient(e)) {
        throw new IllegalStateException("the database is unavailable", e);
      }
      LOG.warn("Instance {}: its due timers could not be handled, the others go on: {}", id, e.toString());
      return false;
    }
  }

  /**
   * The steps whose timers fired, comma-separated (the {@code step} log field): the rows the sweep ended, timed out
   * (a task or a wait) or done (a delay); null when none.
   */
  static String fired(List<StepState> rows) {
    String names = rows.stream().filter(r -> r.id() != null && (r.status() == StepStatus.TIMED_OUT
            || r.status() == StepStatus.SUCCEEDED && "delay".equals(r.kind())))
        .map(StepState::name).distinct().collect(Collectors.joining(","));
    return names.isEmpty() ? null : names;
  }
}
