package dev.baton.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.reliability.history.HistoryRun;
import dev.baton.reliability.history.HistoryTable;
import dev.baton.reliability.infra.Infra;
import dev.baton.reliability.suite.Report;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The history checker over seeded workloads: each seed's Workflows, worker behaviours, signals, cancels and faults
 * run against the runtime (its own JVM) and the ledger workers, and the recorded history must keep every rule of
 * {@link dev.baton.reliability.history.HistoryChecker}. Short (CI): seeds 13 and 79 × 100 instances; {@code -Pfaults}:
 * 20 seeds × 1,000. {@code -Dbaton.history.seeds=12345,678} and {@code -Dbaton.history.instances=N} choose others.
 */
class HistoryCheckIT {

  static final boolean LONG = "long".equals(System.getProperty("baton.faults", "short"));
  static final int INSTANCES = Integer.parseInt(orDefault(System.getProperty("baton.history.instances"),
      LONG ? "1000" : "100"));
  /** With 100 instances these two seeds inject every fault between them, five each. */
  static final List<Long> CI_SEEDS = List.of(13L, 79L);
  static final List<Long> SEEDS = seeds(System.getProperty("baton.history.seeds"));
  static final List<HistoryRun.Outcome> OUTCOMES = new ArrayList<>();

  @TestFactory
  Stream<DynamicTest> everySeedKeepsThePromise() {
    return SEEDS.stream().map(seed -> DynamicTest.dynamicTest("seed " + seed, () -> {
      HistoryRun.Outcome outcome = HistoryRun.run(Infra.get(), seed, INSTANCES);
      synchronized (OUTCOMES) {
        OUTCOMES.add(outcome);
        Report.section("History checker", HistoryTable.markdown(OUTCOMES));
      }
      assertThat(outcome.faults()).as("every planned fault was injected").noneMatch(f -> f.contains(
          HistoryRun.NOT_INJECTED));
      assertThat(outcome.violations()).as(() -> HistoryTable.failure(outcome, 30)).isEmpty();
    }));
  }

  @AfterAll
  static void report() {
    Report.write(LONG ? "long (-Pfaults)" : "short (CI)");
  }

  private static List<Long> seeds(String property) {
    if (property == null || property.isBlank()) {
      return LONG ? LongStream.rangeClosed(1, 20).boxed().toList() : CI_SEEDS;
    }
    return Arrays.stream(property.split(",")).map(String::trim).map(Long::parseLong).toList();
  }

  private static String orDefault(String value, String otherwise) {
    return value == null || value.isBlank() ? otherwise : value.trim();
  }
}
