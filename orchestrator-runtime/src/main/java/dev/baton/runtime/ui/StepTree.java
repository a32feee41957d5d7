package dev.baton.runtime.ui;

import dev.baton.api.v1alpha1.BranchSpec;
import dev.baton.api.v1alpha1.CaseSpec;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.runtime.ui.InstanceView.StepView;
import dev.baton.workflow.IterationNames;
import dev.baton.workflow.StepKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shape of a workflow's steps as the picture needs it: a sequence of steps, where a group (parallel, choice, map)
 * holds branches, each a sequence again; a map has one, its body: the steps each of its iterations runs; a child
 * workflow step is a single step, as a task is, that names the Workflow it starts. Built from
 * the spec of the instance's revision, or, when that is not at hand, from the steps the instance document lists.
 */
record StepTree(List<Node> steps) {

  /**
   * One step; a group's branches are its parallel branches or its choice's cases ({@code otherwise} last, always
   * there, empty when the spec has none); {@code signal}: what a wait waits for; {@code workflow}: the Workflow a
   * child workflow step starts (null for the other kinds, and when it is not known).
   */
  record Node(String name, StepKind kind, List<Branch> branches, String signal, String workflow) {
    Node(String name, StepKind kind, List<Branch> branches, String signal) {
      this(name, kind, branches, signal, null);
    }

    Node(String name, StepKind kind, List<Branch> branches) {
      this(name, kind, branches, null);
    }

    static Node box(String name, StepKind kind) {
      return new Node(name, kind, List.of());
    }

    /** A child workflow step, which starts an instance of {@code workflow}. */
    static Node child(String name, String workflow) {
      return new Node(name, StepKind.WORKFLOW, List.of(), null, workflow);
    }
  }

  static final String OTHERWISE = "otherwise";

  /** One branch of a group; {@code label} is what the picture writes over it (a case's condition, say). */
  record Branch(String label, List<Node> steps) {}

  /** From the Workflow spec the instance is pinned to. */
  static StepTree of(WorkflowSpec spec) {
    return new StepTree(nodes(spec.getSteps()));
  }

  private static List<Node> nodes(List<StepSpec> specs) {
    List<Node> nodes = new ArrayList<>();
    for (StepSpec s : specs == null ? List.<StepSpec>of() : specs) {
      nodes.add(node(s));
    }
    return List.copyOf(nodes);
  }

  private static Node node(StepSpec s) {
    if (s.getParallel() != null && !s.getParallel().isEmpty()) {
      List<Branch> branches = new ArrayList<>();
      for (BranchSpec b : s.getParallel()) {
        branches.add(new Branch("", nodes(b.getSteps())));
      }
      return new Node(s.getName(), StepKind.PARALLEL, List.copyOf(branches));
    }
    if (s.getChoice() != null && !s.getChoice().isEmpty()) {
      List<Branch> cases = new ArrayList<>();
      for (CaseSpec c : s.getChoice()) {
        cases.add(new Branch("when " + c.getWhen(), nodes(c.getSteps())));
      }
      cases.add(new Branch(OTHERWISE, nodes(s.getOtherwise())));
      return new Node(s.getName(), StepKind.CHOICE, List.copyOf(cases));
    }
    if (s.getMap() != null) {
      return new Node(s.getName(), StepKind.MAP, List.of(new Branch("each of " + s.getMap().getItems(),
          nodes(s.getMap().getSteps()))));
    }
    if (s.getWait() != null) {
      return new Node(s.getName(), StepKind.WAIT, List.of(), s.getWait().getSignal());
    }
    if (s.getDelay() != null) {
      return Node.box(s.getName(), StepKind.DELAY);
    }
    if (s.getWorkflow() != null) {
      return Node.child(s.getName(), s.getWorkflow());
    }
    return Node.box(s.getName(), StepKind.TASK);
  }

  /** The names of the steps where an instance can be (not the groups), top to bottom, branch by branch. */
  List<String> places() {
    List<String> names = new ArrayList<>();
    collect(steps, names);
    return names;
  }

  /** The names of the groups (parallel, choice, map). */
  List<String> groups() {
    List<String> names = new ArrayList<>();
    collect(steps, names, true);
    return names;
  }

  private static void collect(List<Node> nodes, List<String> names) {
    collect(nodes, names, false);
  }

  private static void collect(List<Node> nodes, List<String> names, boolean groups) {
    for (Node n : nodes) {
      if (n.kind().isGroup() == groups) {
        names.add(n.name());
      }
      n.branches().forEach(b -> collect(b.steps(), names, groups));
    }
  }

  /** The signal a wait step of this name waits for (in a map's iteration, its step's), if there is one. */
  java.util.Optional<String> signalOf(String step) {
    return find(steps, IterationNames.base(step)).map(Node::signal);
  }

  private static java.util.Optional<Node> find(List<Node> nodes, String name) {
    for (Node n : nodes) {
      if (n.name().equals(name)) {
        return java.util.Optional.of(n);
      }
      for (Branch b : n.branches()) {
        java.util.Optional<Node> inner = find(b.steps(), name);
        if (inner.isPresent()) {
          return inner;
        }
      }
    }
    return java.util.Optional.empty();
  }

  /**
   * From the instance's own steps, when the spec is not at hand: top-level steps in the order they ran, the
   * children of a group in one branch each (the document does not say which branch a step was on); a map without
   * its body (the steps of its iterations are not among {@code steps}: they are folded); a child workflow step with
   * the Workflow of the child it started, if it started one.
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
    if (s.kind() == StepKind.WORKFLOW) {
      return Node.child(s.name(), s.child() == null ? null : s.child().workflow());
    }
    if (!s.kind().isGroup()) {
      return Node.box(s.name(), s.kind());
    }
    List<Branch> branches = children.getOrDefault(s.name(), List.of()).stream()
        .map(c -> new Branch("", List.of(node(c, children)))).toList();
    return new Node(s.name(), s.kind(), branches);
  }
}
