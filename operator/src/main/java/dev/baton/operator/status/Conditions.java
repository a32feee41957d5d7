package dev.baton.operator.status;

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
    String status = verdict.ok() ? "True" : "False";
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

  /** Carries every previous condition but {@code type} over unchanged. */
  public Conditions keepAllBut(String type) {
    previous.stream().filter(c -> !type.equals(c.getType())).forEach(next::add);
    return this;
  }

  public List<Condition> toList() {
    return List.copyOf(next);
  }
}
