package dev.baton.runtime.engine;

import dev.baton.runtime.definitions.DefinitionCatalog;
import dev.baton.runtime.engine.Decision.Change;
import dev.baton.runtime.engine.Decision.NoChange;
import dev.baton.runtime.store.InstanceRecord;
import dev.baton.runtime.store.InstanceStore;
import dev.baton.runtime.store.ProcessedEventStore;
import dev.baton.runtime.store.TransitionBatch;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Events inside the caller's transaction (docs/design.md#runtime-semantics): lock their instances, recognise redeliveries by message id,
 * check that each event answers the execution in flight, decide, and write. The caller commits and only then ACKs.
 *
 * <p>Set-based, so a batch costs a few round trips whatever its size: one query locks every instance of the batch
 * (in id order), one insert marks every message id, one JDBC batch per kind of write. Two events of the same
 * instance in one batch go in successive rounds, the second deciding on the state the first left.
 */
public final class EventApplier {

  private final InstanceStore instances;
  private final ProcessedEventStore processed;
  private final DefinitionCatalog definitions;
  private final TransitionApplier applier;

  public EventApplier(InstanceStore instances, ProcessedEventStore processed, DefinitionCatalog definitions,
      TransitionApplier applier) {
    this.instances = instances;
    this.processed = processed;
    this.definitions = definitions;
    this.applier = applier;
  }

  /** @return a verdict per event, in the order given */
  public List<EventVerdict> applyAll(Connection c, List<InboundEvent> events) throws SQLException {
    EventVerdict[] verdicts = new EventVerdict[events.size()];
    List<Integer> pending = new ArrayList<>();
    for (int i = 0; i < events.size(); i++) {
      pending.add(i);
    }
    while (!pending.isEmpty()) {
      List<Integer> round = new ArrayList<>();
      List<Integer> later = new ArrayList<>();
      Set<UUID> inRound = new LinkedHashSet<>();
      for (int i : pending) {
        (inRound.add(events.get(i).instanceId()) ? round : later).add(i);
      }
      applyRound(c, events, round, inRound, verdicts);
      pending = later;
    }
    return List.of(verdicts);
  }

  private void applyRound(Connection c, List<InboundEvent> events, List<Integer> round, Set<UUID> ids,
      EventVerdict[] verdicts) throws SQLException {
    Map<UUID, InstanceRecord> locked = instances.lockAll(c, ids);
    List<Integer> candidates = new ArrayList<>();
    List<String> messageIds = new ArrayList<>();
    List<UUID> instanceIds = new ArrayList<>();
    for (int i : round) {
      InboundEvent e = events.get(i);
      InstanceRecord instance = locked.get(e.instanceId());
      if (instance == null) {
        verdicts[i] = EventVerdict.unknownInstance("unknown instance " + e.instanceId());
      } else if (!instance.workflow().equals(e.workflow())
          || (e.namespace() != null && !instance.namespace().equals(e.namespace()))) {
        verdicts[i] = EventVerdict.rejected("instance " + instance.id() + " belongs to workflow "
            + instance.namespace() + "/" + instance.workflow() + ", the event names "
            + (e.namespace() == null ? "" : e.namespace() + "/") + e.workflow());
      } else {
        candidates.add(i);
        messageIds.add(e.messageId());
        instanceIds.add(instance.id());
      }
    }
    Set<String> fresh = processed.markProcessed(c, messageIds, instanceIds);
    Set<String> seenInRound = new HashSet<>();
    TransitionBatch batch = new TransitionBatch();
    for (int i : candidates) {
      InboundEvent e = events.get(i);
      if (!fresh.contains(e.messageId()) || !seenInRound.add(e.messageId())) {
        verdicts[i] = EventVerdict.duplicate();
        continue;
      }
      InstanceRecord instance = locked.get(e.instanceId());
      WorkflowDefinition definition =
          definitions.pinned(c, instance.namespace(), instance.workflow(), instance.revision());
      Decision decision = Transitions.onResult(definition, instance.state(), e.toStepResult());
      if (decision instanceof NoChange n) {
        verdicts[i] = EventVerdict.stale(n.reason());
        continue;
      }
      TransitionApplier.Applied applied = applier.plan(batch, instance, definition, (Change) decision, e.output());
      verdicts[i] = EventVerdict.applied(applied.status(), instance.stepElapsedMillis(), applied.dispatched());
    }
    applier.flush(c, batch);
  }
}
