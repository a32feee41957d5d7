package dev.baton.operator.reconciler;

import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last complete broker pass of each resource. Most reconciliations bring nothing new for the broker: a Workflow's
 * instance counts changed, a worker Deployment's replicas became available. Such a reconciliation finds the same
 * generation and the same plan as the last pass and reuses its findings instead of comparing the broker again. A pass
 * older than the resync period is never reused, so drift is still repaired within one resync.
 *
 * @param <F> what a pass found, as the status writer needs it
 */
final class FreshPasses<F> {

  private record Pass<F>(Long generation, Object plan, F findings, Instant at) {}

  private final Map<ResourceID, Pass<F>> passes = new ConcurrentHashMap<>();
  private final Duration maxAge;
  private final Clock clock;

  FreshPasses(Duration maxAge, Clock clock) {
    this.maxAge = maxAge;
    this.clock = clock;
  }

  /**
   * The findings of the last pass, if it planned the same for the same generation less than the resync ago.
   *
   * @param plan everything the pass depended on besides the generation (a value object compared with equals)
   */
  Optional<F> reusable(ResourceID id, Long generation, Object plan) {
    Pass<F> last = passes.get(id);
    if (last == null || !Objects.equals(last.generation(), generation) || !last.plan().equals(plan)
        || !clock.instant().isBefore(last.at().plus(maxAge))) {
      return Optional.empty();
    }
    return Optional.of(last.findings());
  }

  /** @param startedAt when the pass began (the resync timer starts after it ends, so the next one is never reused) */
  void remember(ResourceID id, Long generation, Object plan, F findings, Instant startedAt) {
    passes.put(id, new Pass<>(generation, plan, findings, startedAt));
  }

  void forget(ResourceID id) {
    passes.remove(id);
  }

  Instant now() {
    return clock.instant();
  }
}
