package dev.baton.bench;

import dev.baton.contract.topology.QueueType;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sweeps: one knob at a time, every point on a fresh vhost and database, measured as the drain of preloaded
 * instances (the step loop at saturation) next to the ceiling with the same knob where the knob applies to it.
 */
final class Sweeps {

  private static final Logger LOG = LoggerFactory.getLogger(Sweeps.class);

  static final List<String> ALL =
      List.of("threads", "prefetch", "outbox-batch", "queue-type", "payload", "steps", "shape", "growth", "operator");

  private Sweeps() {}

  static void run(String sweep, BenchConfig base, BenchMain options, Report report) throws Exception {
    LOG.info("sweep {}", sweep);
    switch (sweep) {
      case "threads" -> {
        for (int v : new int[] {1, 2, 4, 8}) {
          point(report, sweep, String.valueOf(v), base.withThreads(v), true);
        }
      }
      case "prefetch" -> {
        for (int v : new int[] {10, 50, 200}) {
          point(report, sweep, String.valueOf(v), base.withPrefetch(v), true);
        }
      }
      case "outbox-batch" -> {
        for (int v : new int[] {20, 200, 1000}) {
          point(report, sweep, String.valueOf(v), base.withOutboxBatch(v), false);
        }
      }
      case "queue-type" -> {
        for (QueueType v : QueueType.values()) {
          point(report, sweep, v.argument(), base.withQueueType(v), true);
        }
      }
      case "payload" -> {
        for (int v : new int[] {300, 10_240}) {
          point(report, sweep, v + " B", base.withPayloadBytes(v), true);
        }
      }
      case "steps" -> {
        for (int v : new int[] {1, 3, 10}) {
          // About the same number of steps per point, so each takes about as long.
          int n = Math.max(1, base.instances() * base.steps() / v);
          point(report, sweep, v + " (" + n + " instances)", base.withSteps(v).withInstances(n), true);
        }
      }
      case "shape" -> {
        // The same --steps tasks (at least 2), in a line, as the branches of one parallel group, inside a choice:
        // what branching costs the step loop. No ceiling: it is linear only. The first point of a run also warms the
        // JVM up (JIT), which flatters whatever comes after it: linear and parallel run again at the end, one after
        // the other, and their ratio is the figure.
        BenchConfig wide = base.withSteps(Math.max(2, base.steps()));
        List<BenchConfig.Shape> order = List.of(BenchConfig.Shape.LINEAR, BenchConfig.Shape.PARALLEL,
            BenchConfig.Shape.CHOICE, BenchConfig.Shape.LINEAR, BenchConfig.Shape.PARALLEL);
        double warmLinear = Double.NaN;
        double warmParallel = Double.NaN;
        for (int i = 0; i < order.size(); i++) {
          BenchConfig.Shape v = order.get(i);
          boolean again = i >= 3;
          double stepsPerSecond = point(report, sweep, v.name().toLowerCase(Locale.ROOT) + " of " + wide.steps()
              + (i == 0 ? " (JVM warming up)" : again ? " (again, JVM warm)" : ""), wide.withShape(v), false);
          if (again && v == BenchConfig.Shape.LINEAR) {
            warmLinear = stepsPerSecond;
          } else if (again) {
            warmParallel = stepsPerSecond;
          }
        }
        report.sweepNotes.add(String.format(Locale.ROOT,
            "Shape: a parallel group of %d branches at %.2f of the linear steps/s (the last two points, JVM warm).",
            wide.steps(), warmParallel / warmLinear));
      }
      case "growth" -> report.growth = Growth.run(base, options.growthRows);
      case "operator" -> report.operator = OperatorScale.run(options.operatorServices, options.operatorWorkflows,
          BenchMain.seconds(options.operatorResync, "--operator-resync"));
      default -> throw new IllegalArgumentException("unknown sweep " + sweep);
    }
  }

  /** @return the point's steps/s */
  private static double point(Report report, String sweep, String value, BenchConfig config, boolean withCeiling)
      throws Exception {
    Double ceiling = withCeiling ? BenchMain.ceiling(config, config.instances()).stepsPerSecond() : null;
    try (Stack stack = Stack.create(config, "bench-sweep"); BatonRun baton = new BatonRun(stack)) {
      baton.startRuntime();
      baton.warmUp(BenchMain.WARM_UP);
      baton.settleJit(BenchMain.JIT_SETTLE); // the first stack of this JVM only
      BatonRun.Drain d = baton.drain(config.instances());
      report.sweeps.add(new Report.SweepPoint(sweep, value, d.stepsPerSecond(), ceiling, d.startsPerSecond(),
          d.stepLatency(), d.usage()));
      return d.stepsPerSecond();
    }
  }
}
