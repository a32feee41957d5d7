package dev.baton.runtime.ui;

import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.ui.InstanceView.StepView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shape of a workflow's steps as the picture needs it: a sequence of steps, where a group (parallel, choice)
 * holds branches, each a sequence again. Built from the spec of the instance's revision, or, when that is not at
 * hand, from the steps the instance document lists.
 */
record StepTree(List<Node> steps) {

  /** One step; a group's branches are its parallel branches or its choice's cases ({@code otherwise} last). */
  record Node(String name, StepKind kind, List<Branch> branches) {
    static Node box(String name, StepKind kind) {
      return new Node(name, kind, List.of());
    }
  }

  /** One branch of a group; {@code label} is what the picture writes over it (a case's condition, say). */
  record Branch(String label, List<Node> steps) {}

  /** From the Workflow spec the instance is pinned to. */
  static StepTree of(WorkflowSpec spec) {
    List<Node> nodes = new ArrayList<>();
    for (StepSpec s : spec.getSteps()) {
      nodes.add(Node.box(s.getName(), StepKind.TASK));
    }
    return new StepTree(List.copyOf(nodes));
  }

  /**
   * From the instance's own steps, when the spec is not at hand: top-level steps in the order they ran, the
   * children of a group in one branch each (the document does not say which branch a step was on).
   */
  static StepTree of(List<StepView> steps) {
    Map<String, List<StepView>> children = new LinkedHashMap<>();
    for (StepView s : steps) {
      if (s.parent() != null) {
        children.computeIfAbsent(s.parent(), p -> new ArrayList<>()).add(s);
      }
    }
    return new StepTree(steps.stream().filter(s -> s.parent() == null).map(s -> node(s, children)).toList());
  }

  private static Node node(StepView s, Map<String, List<StepView>> children) {
    if (!s.kind().isGroup()) {
      return Node.box(s.name(), s.kind());
    }
    List<Branch> branches = children.getOrDefault(s.name(), List.of()).stream()
        .map(c -> new Branch("", List.of(node(c, children)))).toList();
    return new Node(s.name(), s.kind(), branches);
  }
}
