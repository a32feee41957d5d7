package dev.baton.operator.model;

import dev.baton.api.v1alpha1.BatonStatus;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.operator.status.Reason;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Who holds a name that must be unique in the vhost although resources live in many namespaces (a service name, a
 * Workflow's orchestrator queue). The rule (docs/design.md#resources): the older resource, by {@code creationTimestamp}, keeps
 * the name; the newer one is in conflict and gets nothing declared. Timestamps have one-second resolution, so ties
 * go first to the incumbent (the resource whose status shows it already holds the name), then to namespace and
 * name, so every reconciler reaches the same verdict and a newcomer never takes a name away. Pure.
 */
public final class NameClaims<T extends HasMetadata> {

  private final Function<String, Optional<T>> holders;

  private NameClaims(Function<String, Optional<T>> holders) {
    this.holders = holders;
  }

  /**
   * @param resources every resource that may claim a name (all namespaces), deleting ones included: a resource
   *     whose finalizer is still cleaning up holds its name until it is gone
   * @param claim the name a resource claims, if it claims a usable one
   * @param incumbent whether a resource's status shows that it holds its claim already
   */
  public static <T extends HasMetadata> NameClaims<T> of(
      Collection<T> resources, Function<T, Optional<String>> claim, Predicate<T> incumbent) {
    Map<String, List<T>> byName = new HashMap<>();
    for (T r : resources) {
      claim.apply(r).ifPresent(name -> byName.computeIfAbsent(name, n -> new ArrayList<>()).add(r));
    }
    return indexed(name -> byName.getOrDefault(name, List.of()), claim, incumbent);
  }

  /**
   * As {@link #of(Collection, Function, Predicate)}, where the claimants of one name are looked up when that name is
   * asked about (an informer's index by claimed name): a pass asks about a name or two, so it costs what the claimants
   * of those names cost, not what all resources do.
   *
   * @param claimants the resources that may claim a name, by that name (more are fine: they are checked again)
   */
  public static <T extends HasMetadata> NameClaims<T> indexed(Function<String, Collection<T>> claimants,
      Function<T, Optional<String>> claim, Predicate<T> incumbent) {
    Comparator<T> order = Comparator.comparing((T r) -> created(r))
        .thenComparing(r -> !incumbent.test(r))
        .thenComparing(r -> Objects.toString(r.getMetadata().getNamespace(), ""))
        .thenComparing(r -> r.getMetadata().getName());
    Map<String, Optional<T>> asked = new ConcurrentHashMap<>();
    return new NameClaims<>(name -> asked.computeIfAbsent(name, n -> claimants.apply(n).stream()
        .filter(r -> claim.apply(r).filter(n::equals).isPresent()).min(order)));
  }

  public Optional<T> holder(String name) {
    return holders.apply(name);
  }

  /** Whether {@code resource} holds {@code name}. */
  public boolean holds(T resource, String name) {
    return holder(name).map(h -> sameResource(h, resource)).orElse(false);
  }

  /** Whether nobody but {@code resource} holds {@code name}: it may then remove what carries that name. */
  public boolean isFreeFor(T resource, String name) {
    return holder(name).map(h -> sameResource(h, resource)).orElse(true);
  }

  /** Whether a status says its resource lost a name to an older one. */
  public static boolean inConflict(BatonStatus status) {
    return status != null && status.condition(ConditionTypes.READY)
        .map(c -> Reason.CONFLICT.value().equals(c.getReason())).orElse(false);
  }

  /** {@code namespace/name}, how messages name a resource. */
  public static String describe(HasMetadata resource) {
    return resource.getMetadata().getNamespace() + "/" + resource.getMetadata().getName();
  }

  private static boolean sameResource(HasMetadata a, HasMetadata b) {
    return Objects.equals(a.getMetadata().getNamespace(), b.getMetadata().getNamespace())
        && Objects.equals(a.getMetadata().getName(), b.getMetadata().getName());
  }

  /** A resource not yet stamped by the API server counts as the newest. */
  private static Instant created(HasMetadata r) {
    String ts = r.getMetadata().getCreationTimestamp();
    if (ts == null) {
      return Instant.MAX;
    }
    try {
      return Instant.parse(ts);
    } catch (DateTimeParseException e) {
      return Instant.MAX;
    }
  }
}
