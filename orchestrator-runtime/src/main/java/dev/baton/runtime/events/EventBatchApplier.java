package dev.baton.runtime.events;

import dev.baton.runtime.core.InboundEvent;
import dev.baton.runtime.core.Receipt;
import dev.baton.runtime.engine.UnitOfWork;
import java.sql.SQLException;
import java.util.List;

/**
 * What the step loop hands a batch of parsed events to, inside its unit of work: the engine's
 * {@code Engine::applyEvents}. An interface of that one method so that tests can stand in for the engine.
 */
@FunctionalInterface
interface EventBatchApplier {

  /** @return a receipt per event, in the order given */
  List<Receipt> applyAll(UnitOfWork.Transaction tx, List<InboundEvent> events) throws SQLException;
}
