package dev.baton.operator.status;

import dev.baton.api.v1alpha1.ConditionTypes;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Builds a resource's condition list anew on every reconciliation, keeping each condition's
 * {@code lastTransitionTime} while its status stays the same (Kubernetes API conventions), so an unchanged
 * resource gets an identical status and no patch.
 */
public final class Conditions {

  private final List<Condition> previous;
  private final Long generation;
  private final Instant now;
  private final List<Condition> next = new ArrayList<>();

  public Conditions(List<Condition> previous, Long generation, Clock clock) {
    this.previous = previous == null ? List.of() : previous;
    this.generation = generation;
    this.now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
  }

  public Conditions set(String type, ConditionState verdict) {
    return add(type, verdict.ok() ? "True" : "False", verdict);
  }

  /**
   * Ready, and kstatus's reading of it: when it is False, {@code Stalled} (only a person can clear it:
   * {@link Reason#needsAPerson}) or else {@code Reconciling} (the operator is still at it), True with Ready's reason and
   * message; when Ready is True, neither (kstatus's abnormal-true conditions are absent when all is well).
   */
  public Conditions ready(ConditionState verdict) {
    set(ConditionTypes.READY, verdict);
    if (!verdict.ok()) {
      add(verdict.reason().needsAPerson() ? ConditionTypes.STALLED : ConditionTypes.RECONCILING, "True", verdict);
    }
    return this;
  }

  private Conditions add(String type, String status, ConditionState verdict) {
    String since = previous.stream()
        .filter(c -> type.equals(c.getType()) && status.equals(c.getStatus()))
        .map(Condition::getLastTransitionTime)
        .filter(Objects::nonNull)
        .findFirst()
        .orElse(now.toString());
    next.add(new ConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(verdict.reason().value())
        .withMessage(verdict.message())
        .withObservedGeneration(generation)
        .withLastTransitionTime(since)
        .build());
    return this;
  }

  /** Carries the previous condition of {@code type} over unchanged, if there was one. */
  public Conditions keep(String type) {
    previous.stream().filter(c -> type.equals(c.getType())).findFirst().ifPresent(next::add);
    return this;
  }

  /** Carries every previous condition but those of {@code types} over unchanged. */
  public Conditions keepAllBut(String... types) {
    java.util.Set<String> left = java.util.Set.of(types);
    previous.stream().filter(c -> !left.contains(c.getType())).forEach(next::add);
    return this;
  }

  public List<Condition> toList() {
    return List.copyOf(next);
  }
}
