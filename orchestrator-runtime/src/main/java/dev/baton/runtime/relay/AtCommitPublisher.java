package dev.baton.runtime.relay;

import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.relay.HandedCommands.Handed;
import dev.baton.runtime.store.Database;
import dev.baton.runtime.store.OutboxRow;
import dev.baton.runtime.store.QueuedCommand;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fast path (docs/design.md#runtime-semantics, "no lost commands"): when the relay's thread is not in a round,
 * nothing handed over waits before these commands, fewer than {@value OutboxRelay#DEPTH} batches are in flight and
 * none failed, the committing thread claims its own commands by id and publishes them itself, as a batch the relay's
 * thread then finishes like its own (confirms awaited, rows deleted, committed in order); a commit of more than
 * {@value OutboxRelay#MAX_AT_COMMIT} commands is left to the relay. It spares each command the wait for the
 * relay's thread to wake and take it from the hand: at light load most of the time between a commit and its
 * publish. Under load the relay is busy or its batches are in flight, and the commits hand over as before, so that
 * its batches stay large. The claim by id is the relay's own, so a cancel still waits for a command being published
 * and withdraws one that is not, and a row a pause or a limit holds is left to the relay.
 */
final class AtCommitPublisher {

  /** The relay's own logger: what it reports is found under one name. */
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final RelayState state;
  private final Database database;
  private final LimitedClaims limited;
  private final BatchPublisher publishing;
  private final RuntimeMetrics metrics;
  private final OutcomeRecorder recorder;

  AtCommitPublisher(RelayState state, Database database, LimitedClaims limited, BatchPublisher publishing,
      RuntimeMetrics metrics, OutcomeRecorder recorder) {
    this.state = state;
    this.database = database;
    this.limited = limited;
    this.publishing = publishing;
    this.metrics = metrics;
    this.recorder = recorder;
  }

  /** @return whether it took care of the commands (published, set aside, or already gone); false: hand them over */
  boolean tryPublish(List<QueuedCommand> commands) {
    if (commands.size() > OutboxRelay.MAX_AT_COMMIT || state.handed.count() > 0 || !state.running()
        || state.brokerBlocked() || !state.rounds.tryLock()) {
      return false;
    }
    InFlightBatch b = null;
    try {
      // Looked at again under the lock: the relay may have stopped meanwhile (nothing would finish the batch).
      if (!state.running() || state.handed.count() > 0 || state.inFlight.size() >= OutboxRelay.DEPTH
          || state.anyFailure() || state.brokerBlocked()) {
        return false;
      }
      long now = System.currentTimeMillis();
      List<Handed> taken = new ArrayList<>(commands.size());
      for (QueuedCommand command : commands) {
        taken.add(new Handed(command, now));
        limited.handedOver(command.message()); // a limited command's row is not claimed here but apart, at once
      }
      b = new InFlightBatch(database.dataSource().getConnection());
      List<OutboxRow> rows = state.handed.claim(b.connection, taken, b.held);
      b.claimed = rows.size();
      if (rows.size() < commands.size()) {
        state.wakeUp(); // some are limited (or held, or gone): the relay's thread sees to those
      }
      if (rows.isEmpty()) {
        b.rollback(); // withdrawn already, or held by a pause or a limit: nothing to publish here
        return true;
      }
      b.generation = state.publisher.generation();
      publishing.publishInto(b, rows);
      metrics.outboxPublishedAtCommit(b.entries.size());
      if (b.entries.isEmpty()) {
        recorder.commit(b); // everything was set aside: nothing to wait for
      } else {
        state.inFlight.addLast(b); // its last confirm wakes the relay's thread, which finishes it
      }
      return true;
    } catch (SQLException | RuntimeException e) {
      if (b != null) {
        b.rollback(); // the rows are free again: handed over, the relay claims them (what was sent goes again)
      }
      LOG.debug("Publishing at commit failed, the relay takes the commands over: {}", e.toString());
      return false;
    } finally {
      state.rounds.unlock();
    }
  }
}
