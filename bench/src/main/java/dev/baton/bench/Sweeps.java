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

  static final List<String> ALL = List.of("limit", "threads", "prefetch", "outbox-batch", "queue-type", "payload",
      "steps", "shape", "growth", "operator");
  /** The limit sweep's maxInFlight: far above what the drain keeps in flight, so it is never reached. */
  static final int UNREACHED_LIMIT = 100_000;
  /** Sweeps run only when named: {@code map} is the shape sweep's last two points alone (their JVM warmed up first). */
  static final List<String> ON_REQUEST = List.of("map");

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
        // the other, and their ratio is the figure. Then, JVM warm, a map of --map-items beside as many tasks in a line.
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
        if (options.mapItems > 0) {
          report.mapShape = mapPair(report, base, options.mapItems, options.mapConcurrency);
        }
      }
      case "map" -> {
        if (options.mapItems <= 0) {
          throw new IllegalArgumentException("--sweep map needs --map-items 1 or more");
        }
        report.mapShape = mapPair(report, base, options.mapItems, options.mapConcurrency);
      }
      case "limit" -> {
        // The drain with a maxInFlight on every command that it never reaches, beside none: what limited dispatch
        // costs when the limit is not the bottleneck. Like the shape sweep, the first point warms the JVM up. The
        // figure is the last limited point over the mean of the unlimited points just before and after it, so that
        // a machine getting busier or quieter during the sweep does not pass for the limit's cost.
        BenchConfig limited = base.withMaxInFlight(UNREACHED_LIMIT);
        double[] steps = new double[5];
        for (int i = 0; i < steps.length; i++) {
          boolean withLimit = i % 2 == 1;
          steps[i] = point(report, sweep, (withLimit ? "maxInFlight " + UNREACHED_LIMIT : "no limit")
              + (i == 0 ? " (JVM warming up)" : i >= 2 ? " (again, JVM warm)" : ""), withLimit ? limited : base, false);
        }
        report.limitRatio = LimitRatio.bracketed(steps[2], steps[3], steps[4]);
        report.sweepNotes.add(String.format(Locale.ROOT, "Limit: with maxInFlight %d on every command (never "
            + "reached), the drain runs at %.2f of its steps/s without a limit (the fourth point over the mean of "
            + "the unlimited points before and after it, JVM warm).", UNREACHED_LIMIT, report.limitRatio));
      }
      case "growth" -> report.growth = Growth.run(base, options.growthRows);
      case "operator" -> report.operator = OperatorScale.run(options.operatorServices, options.operatorWorkflows,
          BenchMain.seconds(options.operatorResync, "--operator-resync"));
      default -> throw new IllegalArgumentException("unknown sweep " + sweep);
    }
  }

  /**
   * A map of {@code items} items (one task per iteration) beside as many tasks in a line, on a warm JVM (the first
   * stack of the JVM settles it), each point half as many tasks as the other shape points ({@code --instances} x
   * {@code --steps} / 2, so that the sweep stays short) after a warm-up of half as many tasks as theirs. Like for like:
   * every task of both runs the one command of the map's task on its one service (one queue, one worker), and both take
   * the same input (the {@code items} list included), so only the arrangement differs. With every iteration at once
   * (maxConcurrency unset) a map's start dispatches all its tasks and the drain only applies their results, as a
   * parallel group's does: the figure that counts every dispatch on both sides is start to finish (the preload's
   * starts, the relay, the drain).
   */
  static Report.MapShape mapPair(Report report, BenchConfig base, int items, int concurrency) throws Exception {
    int steps = Math.max(2, base.steps()); // the other shape points' tasks per instance
    int n = Math.max(1, base.instances() * steps / 2 / items);
    int warmUp = BenchMain.WARM_UP <= 0 ? 0 : Math.max(1, BenchMain.WARM_UP * steps / 2 / items);
    BenchConfig linear = base.withSteps(items).withInstances(n).withCommands(1).withItems(items)
        .withShape(BenchConfig.Shape.LINEAR);
    BenchConfig map = linear.withShape(BenchConfig.Shape.MAP).withMapConcurrency(concurrency);
    String input = " (one command, " + n + " instances)";
    BatonRun.Drain l = drainPoint(report, "shape", "linear of " + items + input, linear, false, warmUp);
    BatonRun.Drain m = drainPoint(report, "shape", "map of " + items + " items, maxConcurrency "
        + (concurrency > 0 ? String.valueOf(concurrency) : "unset") + input, map, false, warmUp);
    Report.MapShape r = new Report.MapShape(items, concurrency, n, warmUp, l.stepsPerSecond(), m.stepsPerSecond(),
        startToFinish(l, items), startToFinish(m, items), l.startsPerSecond(), m.startsPerSecond());
    report.sweepNotes.add(r.note());
    return r;
  }

  /** Tasks per second from the first start of the preload to the last result applied (preload, relay, drain). */
  static double startToFinish(BatonRun.Drain d, int tasksPerInstance) {
    double seconds = d.instances() / d.startsPerSecond() + d.relaySeconds() + d.drainSeconds();
    return (double) d.instances() * tasksPerInstance / seconds;
  }

  /** @return the point's steps/s */
  private static double point(Report report, String sweep, String value, BenchConfig config, boolean withCeiling)
      throws Exception {
    return drainPoint(report, sweep, value, config, withCeiling, BenchMain.WARM_UP).stepsPerSecond();
  }

  /** One point: a fresh stack warmed up with {@code warmUp} instances, then its drain of {@code --instances}. */
  private static BatonRun.Drain drainPoint(Report report, String sweep, String value, BenchConfig config,
      boolean withCeiling, int warmUp) throws Exception {
    Double ceiling = withCeiling ? BenchMain.ceiling(config, config.instances()).stepsPerSecond() : null;
    try (Stack stack = Stack.create(config, "bench-sweep"); BatonRun baton = new BatonRun(stack)) {
      baton.startRuntime();
      baton.warmUp(warmUp);
      baton.settleJit(BenchMain.JIT_SETTLE); // the first stack of this JVM only
      BatonRun.Drain d = baton.drain(config.instances());
      report.sweeps.add(new Report.SweepPoint(sweep, value, d.stepsPerSecond(), ceiling, d.startsPerSecond(),
          d.stepLatency(), d.usage()));
      return d;
    }
  }
}
