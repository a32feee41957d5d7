package dev.baton.httpapi;

import dev.baton.workflow.IterationNames;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;

/**
 * A map step of an instance document with its iterations folded, as a reader shows it: how many items, how many
 * iterations ended how, how many have not started, and each started iteration with the latest attempt of each step
 * inside it. A map of 10,000 items has tens of thousands of rows in {@code steps}; a page or a terminal shows this
 * instead, and a few iterations — failed ones first, since those are what a reader looks for.
 *
 * @param map the latest attempt of the map's own row
 * @param iterations every iteration started, failed first, then running, cancelled, succeeded; by index within each
 */
public record MapIterations(StepDocument map, List<Iteration> iterations) {

  /** The statuses every summary counts, also at zero, in the order it says them. */
  private static final List<String> ALWAYS_COUNTED = List.of("SUCCEEDED", "RUNNING", "FAILED");

  /**
   * Statuses in the order a reader looks for them: failures first (failed, and any the runtime names otherwise), then
   * running, cancelled, succeeded.
   */
  public static final Comparator<String> FAILED_FIRST = Comparator.comparingInt(MapIterations::rank)
      .thenComparing(Comparator.nullsFirst(Comparator.<String>naturalOrder()));

  /**
   * One iteration: its index (its item's position), the latest attempt of its own row, and the latest attempt of
   * each step inside it (compensations included), in the order those attempts started — the last is where the
   * iteration is, or where it stopped.
   */
  public record Iteration(int index, StepDocument row, List<StepDocument> steps) {

    public String status() {
      return row.status();
    }

    public boolean failed() {
      return isFailure(status());
    }
  }

  public MapIterations {
    iterations = List.copyOf(iterations);
  }

  /**
   * Every map of an instance by name, in the order they first started, from the document's {@code steps} (every
   * attempt, oldest first).
   */
  public static Map<String, MapIterations> of(List<StepDocument> steps) {
    Map<String, StepDocument> maps = new LinkedHashMap<>();
    Map<String, StepDocument> iterationRows = new LinkedHashMap<>();
    Map<String, String> parents = new HashMap<>();
    for (StepDocument s : steps) {
      if ("map".equals(s.kind())) {
        maps.put(s.name(), s);
      } else if ("iteration".equals(s.kind())) {
        iterationRows.put(s.name(), s);
      } else if (!s.isCompensation()) {
        parents.put(s.name(), s.parent());
      }
    }
    // the latest attempt of each step inside an iteration, in the order those attempts started
    Map<String, LinkedHashMap<String, StepDocument>> inside = new HashMap<>();
    for (StepDocument s : steps) {
      if (inIteration(s) && !"iteration".equals(s.kind())) {
        String iteration = iterationOf(stepOf(s.name()), parents, iterationRows.keySet());
        if (iteration != null) {
          LinkedHashMap<String, StepDocument> latest = inside.computeIfAbsent(iteration, i -> new LinkedHashMap<>());
          latest.remove(s.name()); // a later attempt moves to the end
          latest.put(s.name(), s);
        }
      }
    }
    Map<String, List<Iteration>> byMap = new LinkedHashMap<>();
    iterationRows.forEach((name, row) -> byMap.computeIfAbsent(row.parent(), m -> new ArrayList<>())
        .add(new Iteration(IterationNames.index(name), row,
            List.copyOf(inside.getOrDefault(name, new LinkedHashMap<>()).values()))));
    Map<String, MapIterations> out = new LinkedHashMap<>();
    maps.forEach((name, row) -> {
      List<Iteration> its = new ArrayList<>(byMap.getOrDefault(name, List.of()));
      // a failure first whatever its status (failed, timed out, ...), so by index among failures
      its.sort(Comparator.comparingInt((Iteration i) -> rank(i.status())).thenComparingInt(Iteration::index));
      out.put(name, new MapIterations(row, its));
    });
    return out;
  }

  /**
   * Whether a row belongs to a map's iterations — an iteration, a step inside one or its compensation — so a reader
   * that folds them leaves it out of its list of steps.
   */
  public static boolean inIteration(StepDocument row) {
    return row.name() != null && IterationNames.index(stepOf(row.name())) >= 0;
  }

  /** How many items the map's list has; null when it could not be evaluated. */
  public Integer itemCount() {
    return map.itemCount();
  }

  /** The items whose iteration has not started yet (0 when the item count is not known). */
  public int notStarted() {
    return itemCount() == null ? 0 : Math.max(0, itemCount() - iterations.size());
  }

  /** Started iterations by status: succeeded, running and failed always, then any other status there is. */
  public Map<String, Integer> counts() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    ALWAYS_COUNTED.forEach(s -> counts.put(s, 0));
    iterations.forEach(i -> counts.merge(i.status(), 1, Integer::sum));
    return counts;
  }

  /** Whether any iteration failed. */
  public boolean anyFailed() {
    return iterations.stream().anyMatch(Iteration::failed);
  }

  /** {@code 1,000 items: 940 succeeded, 50 running, 10 failed, 0 not started}. */
  public String summary() {
    Integer items = itemCount();
    String counted = tally(counts());
    return items == null ? "items not known: " + counted
        : number(items) + (items == 1 ? " item: " : " items: ") + counted + ", " + number(notStarted())
            + " not started";
  }

  /** Counts by status in words, in the map's order: {@code 940 succeeded, 50 running, 10 failed}. */
  public static String tally(Map<String, Integer> counts) {
    StringJoiner words = new StringJoiner(", ");
    counts.forEach((status, n) -> words.add(number(n) + " " + status.toLowerCase(Locale.ROOT).replace('_', ' ')));
    return words.toString();
  }

  /** The iteration a step of the document runs in, when it is one of this map's. */
  public Optional<Iteration> iterationOf(String step) {
    return iterations.stream().filter(i -> i.steps().stream().anyMatch(s -> s.name().equals(step))).findFirst();
  }

  /** Whether a status is a failure: not succeeded, running or cancelled (failed, timed out, ...). */
  public static boolean isFailure(String status) {
    return rank(status) == 0;
  }

  private static int rank(String status) {
    return switch (status == null ? "" : status) {
      case "RUNNING" -> 1;
      case "CANCELLED" -> 2;
      case "SUCCEEDED" -> 3;
      default -> 0;
    };
  }

  /** The enclosing iteration of a step inside one: up its parents (a step in a group inside it has the group). */
  private static String iterationOf(String step, Map<String, String> parents, Set<String> iterations) {
    Set<String> seen = new HashSet<>();
    String at = parents.get(step);
    while (at != null && !iterations.contains(at) && seen.add(at)) {
      at = parents.get(at);
    }
    return at != null && iterations.contains(at) ? at : null;
  }

  /** The step a row is an attempt of: a compensation's step. */
  private static String stepOf(String name) {
    return name.endsWith(StepDocument.COMPENSATION_SUFFIX)
        ? name.substring(0, name.length() - StepDocument.COMPENSATION_SUFFIX.length()) : name;
  }

  private static String number(int n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
