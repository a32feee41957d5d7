package dev.baton.runtime.events;

import dev.baton.messaging.tracing.LogFields;
import dev.baton.messaging.tracing.MessageTracing;
import dev.baton.runtime.core.InboundEvent;
import dev.baton.runtime.core.Receipt;
import dev.baton.runtime.engine.UnitOfWork;
import dev.baton.runtime.metrics.RuntimeMetrics.ParkReason;
import dev.baton.runtime.metrics.RuntimeMetrics;
import dev.baton.runtime.store.SqlErrors;
import dev.baton.workflow.IterationNames;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The step loop for a batch of deliveries of one consumer thread (docs/design.md#runtime-semantics): parse, then apply every usable
 * event in ONE transaction, commit, and only then settle each delivery. Deliveries that were already waiting share
 * the transaction (opportunistic batching: a lone event is never held back to fill a batch).
 */
final class StepLoop {

  private static final Logger LOG = LoggerFactory.getLogger(StepLoop.class);

  private final UnitOfWork unitOfWork;
  private final EventBatchApplier applier;
  private final EventSettler settler;
  private final RuntimeMetrics metrics;

  StepLoop(UnitOfWork unitOfWork, EventBatchApplier applier, EventSettler settler, RuntimeMetrics metrics) {
    this.unitOfWork = unitOfWork;
    this.applier = applier;
    this.settler = settler;
    this.metrics = metrics;
  }

  /**
   * Handles a batch.
   *
   * @return the deliveries left unsettled because the database could not be used for now; the caller retries them
   */
  List<PendingDelivery> process(List<PendingDelivery> batch) {
    List<Parsed> events = new ArrayList<>(batch.size());
    for (PendingDelivery d : batch) {
      ParsedDelivery p = EventParser.parse(d.workflow(), d.envelope().getRoutingKey(), d.props(), d.body());
      if (p instanceof ParsedDelivery.Event e) {
        events.add(new Parsed(d, e.event()));
      } else if (p instanceof ParsedDelivery.Foreign f) {
        metrics.foreignIgnored(d.namespaceLabel(), d.workflow());
        LOG.debug("Ignored an event of workflow {} in the queue of {}", f.workflow(), d.workflow());
        settler.ack(d);
      } else {
        settler.park(d, ((ParsedDelivery.Malformed) p).reason(), "MalformedEvent", ParkReason.MALFORMED);
      }
    }
    if (events.isEmpty()) {
      return List.of();
    }
    return applyTogether(events, true);
  }

  /**
   * @param wholeBatch true when {@code events} are every unsettled delivery of the batch (then one ACK "multiple"
   *     per channel settles them); false when they are a part of it, tried on their own
   */
  private List<PendingDelivery> applyTogether(List<Parsed> events, boolean wholeBatch) {
    try {
      List<InboundEvent> inbound = new ArrayList<>(events.size());
      for (Parsed p : events) {
        inbound.add(p.event());
      }
      long begin = System.nanoTime();
      if (wholeBatch) { // not again when a failed batch is retried event by event
        for (Parsed p : events) {
          metrics.hop(RuntimeMetrics.Hop.EVENT_WAIT, begin - p.delivery().receivedNanos());
        }
      }
      List<Receipt> receipts = unitOfWork.runHot(tx -> applier.applyAll(tx, inbound), (work, commit) -> {
        for (int i = 0; i < events.size(); i++) {
          metrics.hop(RuntimeMetrics.Hop.EVENT_APPLY, work);
          metrics.hop(RuntimeMetrics.Hop.EVENT_COMMIT, commit);
        }
      });
      settleCommitted(events, receipts, wholeBatch);
      return List.of();
    } catch (Error e) {
      // An Error is first taken for a passing fault: it goes up, the lane starts again and the events come back. An
      // event that raises one again when it comes back is a poison: parked, so it never loops for ever.
      if (events.size() == 1 && events.get(0).delivery().envelope().isRedeliver()) {
        Parsed p = events.get(0);
        try (LogFields.Scope fields = fieldsOf(p)) {
          LOG.error("Event {} to instance {} raised an Error again when it came back: parked", p.event().messageId(),
              p.event().instanceId(), e);
        }
        settler.park(p.delivery(), "applying the event raised " + e + " again when it came back",
            e.getClass().getName(), ParkReason.PROCESSING_ERROR);
        return List.of();
      }
      if (events.size() > 1 && events.stream().anyMatch(p -> p.delivery().envelope().isRedeliver())) {
        List<PendingDelivery> retry = new ArrayList<>(); // which of them raises it?
        for (Parsed p : events) {
          retry.addAll(applyTogether(List.of(p), false));
        }
        return retry;
      }
      throw e;
    } catch (SQLException | RuntimeException e) {
      if (SqlErrors.isTransient(e)) {
        LOG.warn("Database unavailable, {} event(s) stay unacknowledged and are retried: {}", events.size(),
            e.toString());
        return events.stream().map(Parsed::delivery).toList();
      }
      if (events.size() > 1) {
        // One bad event must not hold the others back: apply them one by one to find it.
        List<PendingDelivery> retry = new ArrayList<>();
        for (Parsed p : events) {
          retry.addAll(applyTogether(List.of(p), false));
        }
        return retry;
      }
      Parsed p = events.get(0);
      try (LogFields.Scope fields = fieldsOf(p)) {
        LOG.error("Could not apply event {} to instance {}", p.event().messageId(), p.event().instanceId(), e);
      }
      settler.park(p.delivery(), "could not apply the event: " + e, e.getClass().getName(),
          ParkReason.PROCESSING_ERROR);
      return List.of();
    }
  }

  private static LogFields.Scope fieldsOf(Parsed p) {
    return LogFields.open(String.valueOf(p.event().instanceId()), p.delivery().workflow(), p.event().step(),
        MessageTracing.traceIdOf(p.event().traceparent()));
  }

  private void settleCommitted(List<Parsed> events, List<Receipt> receipts, boolean wholeBatch) {
    List<PendingDelivery> acks = new ArrayList<>(events.size());
    for (int i = 0; i < events.size(); i++) {
      Parsed p = events.get(i);
      Receipt v = receipts.get(i);
      String workflow = p.delivery().workflow();
      switch (v.kind()) {
        case APPLIED -> {
          // In the event's trace, so the latency's exemplar leads to it.
          try (Scope trace = MessageTracing.fromTraceparent(p.event().traceparent()).orElse(Context.root())
              .makeCurrent()) {
            // A map's iterations by their step of the definition: one series per step, not per item.
            metrics.eventApplied(v.namespace(), workflow, IterationNames.base(p.event().step()), p.event().result(),
                v.latencyMillis());
          }
          acks.add(p.delivery());
        }
        case DUPLICATE -> {
          metrics.duplicateIgnored(v.namespace(), workflow);
          acks.add(p.delivery());
        }
        case STALE -> {
          metrics.staleIgnored(v.namespace(), workflow);
          try (LogFields.Scope fields = fieldsOf(p)) {
            LOG.debug("Ignored a stale event of instance {}: {}", p.event().instanceId(), v.detail());
          }
          acks.add(p.delivery());
        }
        case UNKNOWN_INSTANCE -> settler.park(p.delivery(), v.detail(), "UnknownInstance", ParkReason.UNKNOWN_INSTANCE);
        case REJECTED -> settler.park(p.delivery(), v.detail(), "RejectedEvent", ParkReason.REJECTED);
      }
    }
    // Parked ones are settled above: what is left of the batch goes with one ACK per channel.
    if (wholeBatch) {
      settler.ackBatch(acks);
    } else {
      acks.forEach(settler::ack);
    }
  }

  /** Deliveries left unsettled for the broker to redeliver: later ACKs must not cover them. */
  void leftUnsettled(List<PendingDelivery> deliveries) {
    settler.neverAckMultiple(deliveries);
  }

  private record Parsed(PendingDelivery delivery, InboundEvent event) {}
}
