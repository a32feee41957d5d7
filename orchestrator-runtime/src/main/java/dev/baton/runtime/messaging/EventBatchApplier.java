package dev.baton.runtime.messaging;

import dev.baton.runtime.engine.EventVerdict;
import dev.baton.runtime.engine.InboundEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * What the step loop hands a batch of parsed events to, inside its transaction: the engine's
 * {@code EventApplier::applyAll}. An interface of that one method so that tests can stand in for the engine.
 */
@FunctionalInterface
interface EventBatchApplier {

  /** @return a verdict per event, in the order given */
  List<EventVerdict> applyAll(Connection c, List<InboundEvent> events) throws SQLException;
}
