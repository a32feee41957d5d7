package dev.baton.reliability.history;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The history checker's table in the suite's report: one row per seed (instances, the faults injected, violations
 * per rule, verdict), then per seed the counts that show what the run went through (statuses, effects, timeouts,
 * re-sent attempts, expired and late answers, signals and cancels).
 */
public final class HistoryTable {

  private HistoryTable() {}

  public static String markdown(List<HistoryRun.Outcome> outcomes) {
    StringBuilder sb = new StringBuilder("| seed | instances | faults | (a) ended | (b) once | (c) not after its "
        + "compensation | (d) undone | (e) outbox empty | (f) applied | verdict |\n"
        + "|---|---|---|---|---|---|---|---|---|---|\n");
    for (HistoryRun.Outcome o : outcomes) {
      sb.append("| ").append(o.seed()).append(" | ").append(o.instances()).append(" | ")
          .append(String.join("; ", o.faults()));
      for (Rule r : Rule.values()) {
        sb.append(" | ").append(o.violations(r));
      }
      sb.append(" | ").append(o.violations().isEmpty() ? "PASS" : "FAIL").append(" |\n");
    }
    sb.append('\n');
    for (HistoryRun.Outcome o : outcomes) {
      sb.append("- seed ").append(o.seed()).append(": ").append(o.counts().entrySet().stream()
          .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining(", "))).append('\n');
    }
    return sb.toString();
  }

  /** The violations of a seed (the first {@code limit}), and how to run that seed alone. */
  public static String failure(HistoryRun.Outcome o, int limit) {
    Map<Rule, Long> perRule = o.violations().stream()
        .collect(Collectors.groupingBy(Violation::rule, java.util.TreeMap::new, Collectors.counting()));
    return "seed " + o.seed() + " broke the promise: " + perRule + "\n  "
        + o.violations().stream().limit(limit).map(Violation::toString).collect(Collectors.joining("\n  "))
        + (o.violations().size() > limit ? "\n  … " + (o.violations().size() - limit) + " more" : "")
        + "\nfaults: " + o.faults() + "\nrun this seed alone: " + rerun(o.seed(), o.instances());
  }

  public static String rerun(long seed, int instances) {
    return "mvn -B verify -pl reliability -am -DskipUnitTests -Dit.test=HistoryCheckIT"
        + " -Dfailsafe.failIfNoSpecifiedTests=false -Dbaton.history.seeds=" + seed
        + " -Dbaton.history.instances=" + instances;
  }
}
