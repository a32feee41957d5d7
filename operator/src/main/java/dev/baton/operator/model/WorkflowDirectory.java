package dev.baton.operator.model;

import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.workflow.WorkflowSpecs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * The Workflows there are, by namespace, and the Workflows their child workflow steps start (read from the specs as
 * written, valid or not): what the translator checks a child step against, that its Workflow exists and that no
 * Workflow starts itself, directly or through others. Pure.
 */
public final class WorkflowDirectory {

  /** The children of a Workflow that exists and is not being deleted, by namespace and name. */
  private final BiFunction<String, String, Optional<List<String>>> children;

  private WorkflowDirectory(BiFunction<String, String, Optional<List<String>>> children) {
    this.children = children;
  }

  public static WorkflowDirectory of(Collection<Workflow> all) {
    Map<String, Map<String, Workflow>> byName = new HashMap<>();
    for (Workflow w : all) {
      if (w.getMetadata() != null) {
        byName.computeIfAbsent(w.getMetadata().getNamespace(), ns -> new HashMap<>()).put(w.getMetadata().getName(), w);
      }
    }
    return lookingUp((namespace, name) -> Optional.ofNullable(byName.getOrDefault(namespace, Map.of()).get(name)));
  }

  /**
   * As {@link #of(Collection)}, with each Workflow looked up when the check reaches it (an informer's cache by
   * namespace and name): a check walks the few Workflows its child steps lead to, not all there are.
   */
  public static WorkflowDirectory lookingUp(BiFunction<String, String, Optional<Workflow>> workflow) {
    return new WorkflowDirectory((namespace, name) -> workflow.apply(namespace, name)
        // one being deleted starts no more children
        .filter(w -> w.getMetadata() != null && w.getMetadata().getDeletionTimestamp() == null)
        .map(WorkflowDirectory::childrenOf));
  }

  /** The Workflows the child workflow steps of {@code w} start, in declaration order, each once. */
  public static List<String> childrenOf(Workflow w) {
    return WorkflowSpecs.allSteps(w.getSpec()).stream().map(StepSpec::getWorkflow).filter(Objects::nonNull)
        .distinct().toList();
  }

  public boolean exists(String namespace, String name) {
    return children.apply(namespace, name).isPresent();
  }

  /**
   * A way from {@code child} back to {@code start} through child workflow steps, as the names along it
   * ({@code start, child, ..., start}); empty when there is none.
   */
  public Optional<List<String>> cycle(String namespace, String start, String child) {
    List<String> path = new ArrayList<>(List.of(start));
    return walk(namespace, start, child, path, new LinkedHashSet<>()) ? Optional.of(path) : Optional.empty();
  }

  private boolean walk(String namespace, String start, String at, List<String> path, Set<String> seen) {
    path.add(at);
    if (at.equals(start)) {
      return true;
    }
    if (seen.add(at)) {
      for (String next : children.apply(namespace, at).orElse(List.of())) {
        if (walk(namespace, start, next, path, seen)) {
          return true;
        }
      }
    }
    path.remove(path.size() - 1);
    return false;
  }
}
