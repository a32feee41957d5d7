package dev.baton.runtime.relay;

import dev.baton.messaging.PublishResult;
import dev.baton.messaging.PublishResult.Failure;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.OutboxStore;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The batches in flight letting go of their rows before the broker has answered for them all (it blocks publishers,
 * or its confirms are slow), and the confirms they still wait for, awaited apart: timers, cancels and lanes, which
 * withdraw or write rows, never wait long for the relay's. The relay's thread only, under the rounds lock.
 */
final class DetachedBatches {

  /** The relay's own logger: what it reports is found under one name. */
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final RelayState state;
  private final Database database;
  private final OutboxStore store;
  private final ClaimGate gate;
  private final RuntimeMetrics metrics;
  private final OutcomeRecorder recorder;
  /** Batches that let go of their rows with confirms still to come (the relay's thread only). */
  private final List<Detached> detached = new ArrayList<>();

  DetachedBatches(RelayState state, Database database, OutboxStore store, ClaimGate gate, RuntimeMetrics metrics,
      OutcomeRecorder recorder) {
    this.state = state;
    this.database = database;
    this.store = store;
    this.gate = gate;
    this.metrics = metrics;
    this.recorder = recorder;
  }

  /** Commands published and then let go of, awaiting the broker's answers. */
  private record Detached(List<BatchEntry> entries) {

    boolean answered() {
      return entries.stream().allMatch(e -> e.result.isDone());
    }
  }

  /**
   * Every batch in flight lets go of its rows (the broker blocks publishers, or its confirms are slow): what the
   * broker answered is recorded as {@link BatchSettler#finish} would, the rows whose confirm is still to come are
   * committed in doubt and not due for {@link OutboxRelay#IN_DOUBT_FOR}, their confirms awaited apart
   * ({@link #settle}); rows not sent, and those a channel error failed, are left as they were, for a later round.
   */
  void letGoOfAll() throws SQLException {
    gate.failed(); // rows not sent stay due: the next claim searches for them
    int waiting = 0;
    InFlightBatch b;
    while ((b = state.inFlight.pollFirst()) != null) {
      try {
        waiting += letGoOf(b);
      } catch (SQLException | RuntimeException e) {
        b.rollback(); // the rows stay as they were: sent again, with the same message ids
        throw e;
      }
    }
    if (waiting > 0) {
      LOG.warn("{} command(s) published without a confirm yet{}: their rows are released, in doubt, and their"
          + " confirms awaited apart", waiting, state.brokerBlocked() ? " while the broker blocks publishers ("
          + state.block.reason() + ")" : " after " + OutboxRelay.HOLD_AT_MOST.toMillis() + " ms");
    }
  }

  /** {@link #letGoOfAll} after a failed round: the rows of a batch that cannot be written stay as they were. */
  void letGoOfAllQuietly() {
    try {
      letGoOfAll();
    } catch (SQLException | RuntimeException e) {
      LOG.warn("Could not release the batches in flight, their commands are sent again: {}", e.toString());
    }
  }

  /** @return how many of its commands still wait for their confirm */
  private int letGoOf(InFlightBatch b) throws SQLException {
    ConfirmOutcomes outcomes = new ConfirmOutcomes();
    List<BatchEntry> waiting = new ArrayList<>();
    for (BatchEntry e : b.entries) {
      if (e.result == null) {
        continue; // never sent: its row stays as it was
      }
      if (!e.result.isDone()) {
        waiting.add(e);
        continue;
      }
      PublishResult r = e.result.join();
      if (r.failure() != Failure.CHANNEL_ERROR) { // which one caused a channel error is found out in a later round
        outcomes.add(e, r);
      }
    }
    recorder.write(b, outcomes);
    store.inDoubt(b.connection, ids(waiting), OutboxRelay.IN_DOUBT_FOR);
    recorder.commit(b);
    metrics.outboxPublished(outcomes.confirmed.size());
    if (!waiting.isEmpty()) {
      detached.add(new Detached(waiting));
    }
    return waiting.size();
  }

  /**
   * The batches that let go of their rows, once the broker has answered for all of a batch (confirms come as soon as
   * it reads the connection again; the publisher fails them after its confirm timeout): a confirmed row is deleted,
   * a refused one marked, one whose confirm never came made due again. In a short transaction of its own that waits
   * briefly for row locks: a cancel may be withdrawing those rows meanwhile, and may itself wait for a batch in flight
   * that only this thread finishes. A batch whose rows are busy is tried again at the next round.
   */
  void settle() throws SQLException {
    for (Iterator<Detached> it = detached.iterator(); it.hasNext(); ) {
      Detached d = it.next();
      if (!d.answered()) {
        continue;
      }
      ConfirmOutcomes outcomes = new ConfirmOutcomes();
      List<Long> unanswered = new ArrayList<>();
      for (BatchEntry e : d.entries()) {
        PublishResult r = e.result.join();
        if (r.confirmed() || r.status() != PublishResult.Status.FAILED || r.failure() == Failure.REJECTED_BY_CLIENT) {
          outcomes.add(e, r);
        } else {
          unanswered.add(e.row.id()); // no confirm, or a channel error that says not which: sent again
        }
      }
      InFlightBatch b = new InFlightBatch(database.dataSource().getConnection());
      try {
        try (Statement st = b.connection.createStatement()) {
          st.execute("SET LOCAL lock_timeout = '200ms'");
        }
        recorder.write(b, outcomes);
        store.dueNow(b.connection, unanswered);
        recorder.commit(b);
        if (!unanswered.isEmpty()) {
          gate.failed(); // due again: the next claim searches for them
        }
      } catch (SQLException e) {
        b.rollback();
        if ("55P03".equals(e.getSQLState())) { // lock_not_available: rows busy, tried again next round
          continue;
        }
        throw e;
      } catch (RuntimeException e) {
        b.rollback();
        throw e;
      }
      metrics.outboxPublished(outcomes.confirmed.size());
      it.remove();
    }
  }

  private static List<Long> ids(List<BatchEntry> entries) {
    List<Long> ids = new ArrayList<>(entries.size());
    for (BatchEntry e : entries) {
      ids.add(e.row.id());
    }
    return ids;
  }
}
