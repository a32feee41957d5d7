package dev.baton.runtime.ui;

import dev.baton.httpapi.MapIterations;
import dev.baton.httpapi.StepDocument;
import dev.baton.runtime.ui.InstanceView.StepView;
import dev.baton.runtime.ui.StepTree.Branch;
import dev.baton.runtime.ui.StepTree.Node;
import dev.baton.workflow.IterationNames;
import dev.baton.workflow.StepKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Where each step of an instance goes in its picture, computed without drawing anything (so it is tested as
 * numbers): steps run top to bottom, the branches of a parallel group side by side, the cases of a choice side by
 * side with the case taken marked and the others dimmed. A map is one group whatever its number of items: its
 * iterations counted by status under its name, its body (the steps of one iteration) inside, each of those steps
 * with how it went across the iterations. A child workflow step is a box a line taller than a task's: the line of its
 * child. A phone shows the same picture scaled to its width; long pictures scroll.
 */
record StepPicture(int width, int height, List<Box> boxes, List<Frame> frames, List<Edge> edges) {

  static final int MARGIN = 12;
  static final int BOX_W = 220;
  static final int BOX_H = 64;
  /** A child workflow step's box: a task's, and under it the line of its child (the Workflow, the instance). */
  static final int CHILD_BOX_H = BOX_H + 18;
  static final int GAP_Y = 24;
  static final int GAP_X = 20;
  static final int PAD = 10;
  static final int HEADER_H = 22;
  static final int BRANCH_LABEL_H = 20;
  static final int BRANCH_PAD = 6;
  static final int EMPTY_BRANCH_H = 28;
  /** A map's inner width at least: its two lines of counts fit (about 40 characters each). */
  static final int MAP_W = 280;
  /** Under a map's name, the two lines of its counts. */
  static final int TALLY_H = 30;

  /** Status of a step that has not been dispatched (yet). */
  static final String PENDING = "PENDING";
  /** Status of a step a finished instance never dispatched. */
  static final String NOT_REACHED = "NOT_REACHED";
  /** Status of a step on a case that was not taken. */
  static final String SKIPPED = "SKIPPED";

  /**
   * A step drawn as a box; {@code step} is what the instance did there (null: never dispatched, and for a step of a
   * map's body, which runs once per iteration); {@code signal}: what a wait waits for (null otherwise);
   * {@code workflow}: the Workflow a child workflow step starts (null otherwise); {@code body}: for a step of a map's
   * body, how it went across the iterations (null otherwise).
   */
  record Box(String name, StepKind kind, int x, int y, int w, int h, String status, StepView step, String signal,
      String workflow, Body body) {}

  /**
   * A step of a map's body across the map's iterations: the latest attempt of each counted by status (failures
   * first; empty before any ran it), and one that failed, from the first failed iteration (null when none did). Its
   * status is the first of those counted.
   */
  record Body(String map, Map<String, Integer> counts, StepDocument failed) {}

  /**
   * A group or one of its branches: {@code branch} frames sit inside their group's frame; {@code taken} marks the
   * case a choice took, {@code dimmed} the cases it did not; {@code iterations}: a map's, folded (null for other
   * groups, for branches, and for a map that has not started).
   */
  record Frame(String name, StepKind kind, String label, boolean branch, int x, int y, int w, int h, String status,
      boolean taken, boolean dimmed, MapIterations iterations) {}

  /** A line from one step to the next. */
  record Edge(int x1, int y1, int x2, int y2) {}

  record Size(int w, int h) {}

  /** The picture of a running instance: steps not dispatched yet are {@link #PENDING}. */
  static StepPicture layout(StepTree tree, List<StepView> steps) {
    return layout(tree, steps, Map.of(), false);
  }

  /**
   * @param maps the instance's maps, their iterations folded, by name
   * @param finished the instance has ended: the steps it never dispatched are {@link #NOT_REACHED}
   */
  static StepPicture layout(StepTree tree, List<StepView> steps, Map<String, MapIterations> maps,
      boolean finished) {
    Map<String, StepView> byName = steps.stream()
        .collect(Collectors.toMap(StepView::name, Function.identity(), (a, b) -> b));
    Layout l = new Layout(byName, maps, finished ? NOT_REACHED : PENDING);
    Size size = l.measure(tree.steps());
    l.placeSequence(tree.steps(), MARGIN, MARGIN, size.w(), false, null);
    return new StepPicture(size.w() + 2 * MARGIN, size.h() + 2 * MARGIN, List.copyOf(l.boxes),
        List.copyOf(l.frames), List.copyOf(l.edges));
  }

  Optional<Box> box(String name) {
    return boxes.stream().filter(b -> b.name().equals(name)).findFirst();
  }

  Optional<Frame> frame(String name) {
    return frames.stream().filter(f -> !f.branch() && f.name().equals(name)).findFirst();
  }

  private static final class Layout {
    final Map<String, StepView> steps;
    final Map<String, MapIterations> maps;
    final List<Box> boxes = new ArrayList<>();
    final List<Frame> frames = new ArrayList<>();
    final List<Edge> edges = new ArrayList<>();
    final String unreached;

    Layout(Map<String, StepView> steps, Map<String, MapIterations> maps, String unreached) {
      this.steps = steps;
      this.maps = maps;
      this.unreached = unreached;
    }

    Size measure(List<Node> sequence) {
      int w = 0;
      int h = 0;
      for (Node n : sequence) {
        Size s = measure(n);
        w = Math.max(w, s.w());
        h += s.h();
      }
      return new Size(w, h + GAP_Y * Math.max(0, sequence.size() - 1));
    }

    Size measure(Node n) {
      if (!n.kind().isGroup()) {
        return new Size(BOX_W, n.kind() == StepKind.WORKFLOW ? CHILD_BOX_H : BOX_H);
      }
      int w = 0;
      int h = 0;
      for (Branch b : n.branches()) {
        Size s = branchSize(b);
        w += s.w();
        h = Math.max(h, s.h());
      }
      w += GAP_X * Math.max(0, n.branches().size() - 1);
      return new Size(Math.max(w, n.kind() == StepKind.MAP ? MAP_W : BOX_W) + 2 * PAD, h + header(n) + 2 * PAD);
    }

    static int header(Node group) {
      return HEADER_H + (group.kind() == StepKind.MAP ? TALLY_H : 0);
    }

    Size branchSize(Branch b) {
      Size inner = b.steps().isEmpty() ? new Size(BOX_W / 2, EMPTY_BRANCH_H) : measure(b.steps());
      return new Size(inner.w() + 2 * BRANCH_PAD, inner.h() + BRANCH_LABEL_H + BRANCH_PAD);
    }

    /**
     * Places a sequence centred in {@code width}, joined by edges; {@code skipped}: on a case not taken; {@code map}:
     * the map whose body it is in, or null.
     */
    void placeSequence(List<Node> sequence, int x, int y, int width, boolean skipped, String map) {
      int previousBottom = -1;
      for (Node n : sequence) {
        Size s = measure(n);
        int left = x + (width - s.w()) / 2;
        if (previousBottom >= 0) {
          edges.add(new Edge(x + width / 2, previousBottom, x + width / 2, y));
        }
        place(n, left, y, s, skipped, map);
        previousBottom = y + s.h();
        y += s.h() + GAP_Y;
      }
    }

    void place(Node n, int x, int y, Size s, boolean skipped, String map) {
      // a step of a map's body has no row of its own: its rows are its iterations' (ship-one[3], ...)
      StepView step = map == null ? steps.get(n.name()) : null;
      Body body = map == null ? null : body(n.name(), map);
      String status = step != null ? step.status() : body != null && !body.counts().isEmpty()
          ? body.counts().keySet().iterator().next() : skipped ? SKIPPED : unreached;
      if (!n.kind().isGroup()) {
        boxes.add(new Box(n.name(), n.kind(), x, y, s.w(), s.h(), status, step, n.signal(), n.workflow(), body));
        return;
      }
      frames.add(new Frame(n.name(), n.kind(), n.kind().wireName() + " " + n.name(), false, x, y, s.w(), s.h(), status,
          false, skipped, n.kind() == StepKind.MAP ? maps.get(n.name()) : null));
      String inside = n.kind() == StepKind.MAP ? n.name() : map;
      int taken = n.kind() == StepKind.CHOICE ? takenCase(n, step) : -1;
      int inner = s.w() - 2 * PAD;
      int content = 0;
      for (Branch b : n.branches()) {
        content += branchSize(b).w();
      }
      content += GAP_X * Math.max(0, n.branches().size() - 1);
      int bx = x + PAD + (inner - content) / 2;
      int by = y + header(n) + PAD;
      for (int i = 0; i < n.branches().size(); i++) {
        Branch b = n.branches().get(i);
        Size bs = branchSize(b);
        boolean notTaken = skipped || taken >= 0 && i != taken || taken < 0 && n.kind() == StepKind.CHOICE
            && isSettled(step);
        String label = b.label().isEmpty() ? (n.kind() == StepKind.CHOICE ? "case " : "branch ") + (i + 1)
            : b.label();
        frames.add(new Frame(n.name(), n.kind(), label, true, bx, by, bs.w(), bs.h(),
            notTaken ? SKIPPED : status, i == taken, notTaken, null));
        placeSequence(b.steps(), bx + BRANCH_PAD, by + BRANCH_LABEL_H, bs.w() - 2 * BRANCH_PAD, notTaken, inside);
        bx += bs.w() + GAP_X;
      }
    }

    /** A step of a map's body across the iterations started so far. */
    Body body(String step, String map) {
      MapIterations iterations = maps.get(map);
      Map<String, Integer> counts = new TreeMap<>(MapIterations.FAILED_FIRST);
      StepDocument failed = null;
      // failed iterations come first: the failure kept is the first failed iteration's
      for (MapIterations.Iteration i : iterations == null ? List.<MapIterations.Iteration>of()
          : iterations.iterations()) {
        for (StepDocument attempt : i.steps()) {
          if (IterationNames.base(attempt.name()).equals(step)) {
            counts.merge(attempt.status(), 1, Integer::sum);
            if (failed == null && MapIterations.isFailure(attempt.status())) {
              failed = attempt;
            }
          }
        }
      }
      return new Body(map, counts, failed);
    }

    /**
     * The case a choice took: the one the runtime names ({@code chosen}); else the one with a step that ran; a
     * choice that succeeded with none took an empty case, taken to be the last empty one ({@code otherwise} is
     * last); -1: not decided yet.
     */
    int takenCase(Node choice, StepView step) {
      int cases = choice.branches().size();
      if (step != null && step.chosen() != null) { // the runtime says which
        if (StepTree.OTHERWISE.equals(step.chosen())) {
          return cases > 0 && StepTree.OTHERWISE.equals(choice.branches().get(cases - 1).label()) ? cases - 1 : -1;
        }
        try {
          int i = Integer.parseInt(step.chosen());
          return i >= 0 && i < cases ? i : -1;
        } catch (NumberFormatException e) {
          return -1;
        }
      }
      for (int i = 0; i < choice.branches().size(); i++) {
        if (ran(choice.branches().get(i).steps())) {
          return i;
        }
      }
      if (step != null && "SUCCEEDED".equals(step.status())) {
        for (int i = choice.branches().size() - 1; i >= 0; i--) {
          if (choice.branches().get(i).steps().isEmpty()) {
            return i;
          }
        }
      }
      return -1;
    }

    boolean ran(List<Node> sequence) {
      for (Node n : sequence) {
        if (steps.containsKey(n.name()) || n.branches().stream().anyMatch(b -> ran(b.steps()))) {
          return true;
        }
      }
      return false;
    }

    static boolean isSettled(StepView step) {
      return step != null && !"RUNNING".equals(step.status());
    }
  }
}
