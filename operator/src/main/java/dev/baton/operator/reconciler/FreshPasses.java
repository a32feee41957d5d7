package dev.baton.operator.reconciler;

import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.operator.status.WorkflowFindings;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last complete broker pass of each Workflow. Instance counts change every few seconds on a busy system; a
 * reconciliation they trigger finds the same generation and the same plan as the last pass and can reuse its findings
 * instead of listing the broker's queues and bindings again. A pass older than the resync period is never reused, so
 * drift is still repaired within one resync.
 */
final class FreshPasses {

  private record Pass(Long generation, OrchestratorTopology plan, WorkflowFindings findings, Instant at) {}

  private final Map<ResourceID, Pass> passes = new ConcurrentHashMap<>();
  private final Duration maxAge;
  private final Clock clock;

  FreshPasses(Duration maxAge, Clock clock) {
    this.maxAge = maxAge;
    this.clock = clock;
  }

  /** The findings of the last pass, if it planned the same for the same generation less than the resync ago. */
  Optional<WorkflowFindings> reusable(ResourceID id, Long generation, OrchestratorTopology plan) {
    Pass last = passes.get(id);
    if (last == null || !Objects.equals(last.generation(), generation) || !last.plan().equals(plan)
        || !clock.instant().isBefore(last.at().plus(maxAge))) {
      return Optional.empty();
    }
    return Optional.of(last.findings());
  }

  /** @param startedAt when the pass began (the resync timer starts after it ends, so the next one is never reused) */
  void remember(ResourceID id, Long generation, OrchestratorTopology plan, WorkflowFindings findings, Instant startedAt) {
    passes.put(id, new Pass(generation, plan, findings, startedAt));
  }

  void forget(ResourceID id) {
    passes.remove(id);
  }

  Instant now() {
    return clock.instant();
  }
}
