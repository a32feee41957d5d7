package dev.baton.runtime.ui;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The workflows page as data: per Workflow, its revision, its instances by status, and per step how many instances
 * are at that step now and since when the oldest of them is — the aggregate answer to "stuck at A, B or C". A
 * Workflow shows as long as it is a resource or has instances (a deleted one with instances left is marked).
 */
record WorkflowBoard(List<Row> rows) {

  /** The statuses in the order the page shows them. */
  static final List<String> STATUSES = List.of("RUNNING", "COMPENSATING", "SUCCEEDED", "FAILED", "COMPENSATED",
      "CANCELLED");

  /**
   * A Workflow resource as the runtime sees it: its steps in order, its revision (null: not recorded yet), and
   * whether it is paused ({@code spec.paused}).
   */
  record Definition(String namespace, String name, List<String> steps, Integer revision, boolean paused,
      NextFire nextFire) {

    Definition(String namespace, String name, List<String> steps, Integer revision) {
      this(namespace, name, steps, revision, false, null);
    }

    Definition(String namespace, String name, List<String> steps, Integer revision, boolean paused) {
      this(namespace, name, steps, revision, paused, null);
    }
  }

  /** The soonest fire of a Workflow's schedules: which schedule, and when. */
  record NextFire(String schedule, java.time.Instant at) {}

  /** Instances of one workflow with one status. */
  record Count(String namespace, String workflow, String status, long count) {}

  /**
   * Instances at one step of one workflow now (attempts in flight); {@code compensating}: undoing that step;
   * {@code oldestWait}: how long the oldest of them has been there.
   */
  record Occupancy(String namespace, String workflow, String step, boolean compensating, long count,
      Duration oldestWait) {}

  /**
   * One step's line: how many are there and the oldest's wait (null when none are), and how many of them wait for
   * capacity (their command has a maxInFlight, all taken).
   */
  record StepLine(String step, boolean compensating, long count, Duration oldestWait, long waitingForCapacity) {

    StepLine(String step, boolean compensating, long count, Duration oldestWait) {
      this(step, compensating, count, oldestWait, 0);
    }
  }

  record Row(String namespace, String name, Integer revision, boolean deleted, boolean paused, NextFire nextFire,
      Map<String, Long> counts, List<StepLine> steps) {
    long total() {
      return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    long count(String status) {
      return counts.getOrDefault(status, 0L);
    }
  }

  static WorkflowBoard of(List<Definition> definitions, List<Count> counts, List<Occupancy> occupancy) {
    return of(definitions, counts, occupancy, Map.of());
  }

  /** @param waitingForCapacity by namespace/workflow/step: commands waiting for capacity */
  static WorkflowBoard of(List<Definition> definitions, List<Count> counts, List<Occupancy> occupancy,
      Map<String, Long> waitingForCapacity) {
    Map<String, Builder> rows = new TreeMap<>();
    for (Definition d : definitions) {
      Builder b = rows.computeIfAbsent(key(d.namespace(), d.name()), k -> new Builder(d.namespace(), d.name()));
      b.definition = d;
    }
    for (Count c : counts) {
      if (c.count() != 0) {
        rows.computeIfAbsent(key(c.namespace(), c.workflow()), k -> new Builder(c.namespace(), c.workflow()))
            .counts.merge(c.status(), c.count(), Long::sum);
      }
    }
    for (Occupancy o : occupancy) {
      rows.computeIfAbsent(key(o.namespace(), o.workflow()), k -> new Builder(o.namespace(), o.workflow()))
          .occupancy.add(o);
    }
    return new WorkflowBoard(rows.values().stream().map(b -> b.build(waitingForCapacity)).toList());
  }

  private static String key(String namespace, String name) {
    return namespace + "\u0000" + name;
  }

  private static final class Builder {
    final String namespace;
    final String name;
    Definition definition;
    final Map<String, Long> counts = new LinkedHashMap<>();
    final List<Occupancy> occupancy = new ArrayList<>();

    Builder(String namespace, String name) {
      this.namespace = namespace;
      this.name = name;
    }

    Row build(Map<String, Long> waitingForCapacity) {
      Map<String, Long> ordered = new LinkedHashMap<>();
      STATUSES.forEach(s -> ordered.put(s, counts.getOrDefault(s, 0L)));
      counts.forEach(ordered::putIfAbsent); // a status the page does not know still counts
      // every step of the definition in order, then steps only instances know of (an older revision's)
      Map<String, StepLine> lines = new LinkedHashMap<>();
      if (definition != null) {
        definition.steps().forEach(s -> lines.put(s + "\u0000false", new StepLine(s, false, 0, null)));
      }
      for (Occupancy o : occupancy) {
        lines.merge(o.step() + "\u0000" + o.compensating(),
            new StepLine(o.step(), o.compensating(), o.count(), o.oldestWait()),
            (a, b) -> new StepLine(a.step(), a.compensating(), a.count() + b.count(), longer(a.oldestWait(),
                b.oldestWait())));
      }
      List<StepLine> steps = lines.values().stream().map(l -> l.compensating() ? l : new StepLine(l.step(), false,
          l.count(), l.oldestWait(), waitingForCapacity.getOrDefault(namespace + "/" + name + "/" + l.step(), 0L)))
          .toList();
      return new Row(namespace, name, definition == null ? null : definition.revision(), definition == null,
          definition != null && definition.paused(), definition == null ? null : definition.nextFire(), ordered, steps);
    }

    private static Duration longer(Duration a, Duration b) {
      return a == null ? b : b == null ? a : a.compareTo(b) >= 0 ? a : b;
    }
  }
}
