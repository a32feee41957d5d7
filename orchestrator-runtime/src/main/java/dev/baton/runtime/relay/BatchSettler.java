package dev.baton.runtime.relay;

import dev.baton.messaging.PublishResult;
import dev.baton.messaging.PublishResult.Failure;
import dev.baton.messaging.tracing.LogFields;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.tracing.InstanceTracing;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finishes a batch once the broker has answered for it: deletes what was confirmed, sets aside or refuses the rest,
 * and commits; rows a channel error failed are published again one at a time, so that the one at fault is refused
 * alone. The relay's thread only, under the rounds lock.
 */
final class BatchSettler {

  /** The relay's own logger: what it reports is found under one name. */
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final RelayState state;
  private final DetachedBatches detached;
  private final RuntimeMetrics metrics;
  private final OutcomeRecorder recorder;

  BatchSettler(RelayState state, DetachedBatches detached, RuntimeMetrics metrics, OutcomeRecorder recorder) {
    this.state = state;
    this.detached = detached;
    this.metrics = metrics;
    this.recorder = recorder;
  }

  /**
   * Waits for the batch's outcomes, then deletes what the broker took, sets aside what it would not, and commits.
   *
   * @param isolate whether rows caught in a channel error are published again one by one to find the culprit
   * @return false when some outcomes say nothing about the commands (connection down, no confirm in time): those
   *     rows are left as they are and the caller backs off
   */
  boolean finish(InFlightBatch b, boolean isolate) throws SQLException, InterruptedException {
    ConfirmOutcomes outcomes = new ConfirmOutcomes();
    List<BatchEntry> suspects = new ArrayList<>();
    for (BatchEntry e : b.entries) {
      PublishResult r = e.result == null ? null : await(e.result);
      if (r == null || r.failure() == Failure.CHANNEL_ERROR) {
        suspects.add(e); // not sent, or on a channel that an error closed: maybe its own fault, maybe not
      } else {
        outcomes.add(e, r);
      }
    }
    if (!outcomes.unknown && !suspects.isEmpty()) {
      if (isolate) {
        LOG.warn("A channel error failed {} command(s); publishing them one at a time to find the one at fault",
            suspects.size());
        for (BatchEntry e : suspects) {
          PublishResult alone = await(state.publisher.publish(e.message));
          outcomes.add(e, alone);
          if (outcomes.unknown) {
            break; // the broker went away meanwhile: the rest waits for the next round
          }
          if (!alone.confirmed()) {
            try (LogFields.Scope fields = InstanceTracing.logFieldsOf(e.message.properties().getHeaders(),
                e.row.message().correlationId(), null)) {
              LOG.warn("Command {} to {} ({}) failed on its own: {}", e.row.message().messageId(),
                  e.message.exchange(), e.message.routingKey(), alone);
            }
          }
        }
      } else {
        outcomes.unknown = true;
      }
    }
    recorder.write(b, outcomes);
    recorder.commit(b);
    metrics.outboxPublished(outcomes.confirmed.size());
    return !outcomes.unknown;
  }

  /** After a failed round: each batch in flight keeps what the broker confirmed (deleted) and leaves the rest. */
  void settleAll() {
    if (state.brokerBlocked()) {
      detached.letGoOfAllQuietly(); // no waiting for confirms that will not come before the alarm ends
    }
    InFlightBatch b;
    while ((b = state.inFlight.pollFirst()) != null) {
      try {
        finish(b, false);
      } catch (SQLException | RuntimeException e) {
        LOG.warn("Could not record the outcome of a batch, its commands are sent again: {}", e.toString());
        b.rollback();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        b.rollback();
      }
    }
  }

  /** The publisher completes every future within its confirm timeout; the margin only guards against a bug. */
  private static PublishResult await(CompletableFuture<PublishResult> f) throws InterruptedException {
    try {
      return f.get(OutboxRelay.CONFIRM_TIMEOUT.toMillis() + OutboxRelay.WAIT_MARGIN_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }
}
