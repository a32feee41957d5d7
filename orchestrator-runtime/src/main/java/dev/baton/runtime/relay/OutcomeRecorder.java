package dev.baton.runtime.relay;

import dev.baton.contract.Names;
import dev.baton.runtime.engine.CommandRefusals;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.OutboxStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes what rows came to in their batch's transaction: deletes the confirmed, sets aside (backoff, {@code
 * last_error}) those that may go later, marks refused those that never will; and commits, telling the engine of the
 * refusals once they are committed.
 */
final class OutcomeRecorder {

  /** The relay's own logger: what it reports is found under one name. */
  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final OutboxStore store;
  private final RuntimeMetrics metrics;
  private final CommandRefusals refusals;
  private final BrokerMessageLimit limit;
  private final ExchangeProbe probe;

  OutcomeRecorder(OutboxStore store, RuntimeMetrics metrics, CommandRefusals refusals, BrokerMessageLimit limit,
      ExchangeProbe probe) {
    this.store = store;
    this.metrics = metrics;
    this.refusals = refusals;
    this.limit = limit;
    this.probe = probe;
  }

  void write(InFlightBatch b, ConfirmOutcomes outcomes) throws SQLException {
    for (Map.Entry<String, List<Long>> e : outcomes.unroutable.entrySet()) {
      String[] exchangeAndKey = e.getKey().split(" ", 2);
      String error = "no queue bound to " + exchangeAndKey[1] + " on " + exchangeAndKey[0];
      Set<Long> overdue = store.deferUnroutable(b.connection, e.getValue(), error
          + readyHint(exchangeAndKey[0]), OutboxRelay.UNROUTABLE_REFUSED_AFTER);
      metrics.outboxUnroutable(exchangeAndKey[0], e.getValue().size());
      if (overdue.isEmpty()) {
        LOG.warn("{} command(s) kept in the outbox and retried later: {}{}", e.getValue().size(), error,
            readyHint(exchangeAndKey[0]));
      } else {
        refuse(b, overdue, exchangeAndKey[0], "the broker could not route the command for "
            + OutboxRelay.UNROUTABLE_REFUSED_AFTER.toSeconds() + " s: " + error + readyHint(exchangeAndKey[0]));
      }
    }
    for (Map.Entry<String, List<Long>> e : outcomes.refused.entrySet()) {
      String[] exchangeAndReason = e.getKey().split(" ", 2);
      limit.learnFrom(exchangeAndReason[1]);
      refuse(b, e.getValue(), exchangeAndReason[0], exchangeAndReason[1]);
    }
    for (Map.Entry<String, List<Long>> e : outcomes.missingExchange.entrySet()) {
      probe.forget();
      setAsideMissing(b.connection, e.getValue(), e.getKey());
    }
    for (Map.Entry<String, List<Long>> e : outcomes.notPermitted.entrySet()) {
      setAside(b.connection, e.getValue(), e.getKey(), "the runtime's broker user may not write " + e.getKey()
          + " (yet): the operator grants it with TopologyPlanner.orchestratorPermissions()", false);
    }
    store.confirmed(b.connection, outcomes.confirmed);
  }

  /** Commits the batch's transaction; refusals it marked go to the engine once they are committed. */
  void commit(InFlightBatch b) throws SQLException {
    b.commit();
    if (b.refused) {
      refusals.refused();
    }
  }

  /**
   * Marks rows refused with the reason, in the batch's transaction: never claimed again, handed to the engine once the
   * batch has committed.
   */
  void refuse(InFlightBatch b, Collection<Long> ids, String exchange, String reason) throws SQLException {
    store.refuse(b.connection, ids, reason);
    b.refused = true;
    metrics.outboxRefused(exchange, ids.size());
    if (Names.instanceOutcomeExchange().equals(exchange)) {
      // An ended instance has nothing left to fail: the refused outcome is lost, which a person must hear of.
      LOG.error("{} instance outcome event(s) refused by the broker and dropped: {}", ids.size(), reason);
    } else {
      LOG.warn("{} command(s) refused, their attempts fail: {}", ids.size(), reason);
    }
  }

  /** Sets aside rows whose exchange does not exist: their WorkerService may not be Ready yet. */
  void setAsideMissing(Connection c, List<Long> ids, String exchange) throws SQLException {
    setAside(c, ids, exchange, "exchange " + exchange + " does not exist" + readyHint(exchange), true);
  }

  private void setAside(Connection c, List<Long> ids, String exchange, String reason, boolean unroutable)
      throws SQLException {
    store.defer(c, ids, reason);
    if (unroutable) {
      metrics.outboxUnroutable(exchange, ids.size());
    } else {
      metrics.outboxRefused(exchange, ids.size());
    }
    LOG.warn("{} command(s) kept in the outbox and retried later: {}", ids.size(), reason);
  }

  private static String readyHint(String exchange) {
    if (Names.instanceOutcomeExchange().equals(exchange)) {
      return " — the operator declares it at its start: is it running on this vhost?";
    }
    return " — is WorkerService " + serviceOf(exchange) + " Ready?";
  }

  /** The service of a command exchange {@code S.command.topic.ex} (names come from {@link Names}). */
  static String serviceOf(String exchange) {
    String suffix = Names.commandExchange("");
    return exchange.endsWith(suffix) ? exchange.substring(0, exchange.length() - suffix.length()) : exchange;
  }
}
