package dev.baton.bench;

import static dev.baton.bench.Report.f0;
import static dev.baton.bench.Report.f1;
import static dev.baton.bench.Report.f2;
import static dev.baton.bench.Report.num;
import static dev.baton.bench.Report.percentiles;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.json.Json;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Baton at a fixed start rate and, in the same run, the raw pipeline at the same rate (null when not measured): the
 * half-load point (half the sustained rate, {@code halfRate}) and the light-load point ({@code --light-rate},
 * {@code lightRate}). Latency reads as a multiple of the raw pipeline's, since what the machine allows at a load moves
 * with the machine, beside the targets set for the point.
 *
 * @param name how the report calls the point ("half rate", "light load")
 * @param targets what the point is held to
 */
record RatePoint(String name, BatonRun.FixedRate baton, Ceiling.FixedRate ceiling, List<Target> targets) {

  /** A bound on one of the point's figures: met when the figure is at most {@code atMost}. */
  enum Target {
    STEP_P50_TO_CEILING("stepP50ToCeiling", Figure.STEP_P50, true, 2.0),
    STEP_P99_TO_CEILING("stepP99ToCeiling", Figure.STEP_P99, true, 2.5),
    END_TO_END_P50_MS("endToEndP50Ms", Figure.END_TO_END_P50, false, 6.0);

    final String json;
    final Figure figure;
    /** A multiple of the raw pipeline's figure, or else Baton's figure in ms. */
    final boolean ratio;
    final double atMost;

    Target(String json, Figure figure, boolean ratio, double atMost) {
      this.json = json;
      this.figure = figure;
      this.ratio = ratio;
      this.atMost = atMost;
    }

    double value(RatePoint p) {
      return ratio ? p.ratio(figure) : figure.of(p.baton.stepLatency(), p.baton.endToEnd());
    }

    String describe(RatePoint p) {
      double v = value(p);
      return "≤ " + (ratio ? f1(atMost) + "×" : f0(atMost) + " ms")
          + (Double.isNaN(v) ? "" : v <= atMost ? ": met" : ": **not met**");
    }
  }

  /** The latencies compared, in ms. */
  enum Figure {
    STEP_P50("step p50", "stepP50", Percentiles::p50, false),
    STEP_P99("step p99", "stepP99", Percentiles::p99, false),
    END_TO_END_P50("end to end p50", "endToEndP50", Percentiles::p50, true),
    END_TO_END_P99("end to end p99", "endToEndP99", Percentiles::p99, true);

    final String label;
    final String json;
    private final ToDoubleFunction<Percentiles> percentile;
    private final boolean endToEnd;

    Figure(String label, String json, ToDoubleFunction<Percentiles> percentile, boolean endToEnd) {
      this.label = label;
      this.json = json;
      this.percentile = percentile;
      this.endToEnd = endToEnd;
    }

    double of(Percentiles steps, Percentiles endToEnd) {
      return percentile.applyAsDouble(this.endToEnd ? endToEnd : steps);
    }
  }

  /** Half the sustained rate: step latency at most 2× the raw pipeline's at p50, 2.5× at p99. */
  static RatePoint half(BatonRun.FixedRate baton, Ceiling.FixedRate ceiling) {
    return new RatePoint("half rate", baton, ceiling, List.of(Target.STEP_P50_TO_CEILING, Target.STEP_P99_TO_CEILING));
  }

  /** Light load, where most users live: a 3-step workflow end to end in 6 ms at p50. */
  static RatePoint light(BatonRun.FixedRate baton, Ceiling.FixedRate ceiling) {
    return new RatePoint("light load", baton, ceiling, List.of(Target.END_TO_END_P50_MS));
  }

  /** Baton's figure over the raw pipeline's at the same rate; NaN when the raw pipeline did not run. */
  double ratio(Figure f) {
    if (ceiling == null) {
      return Double.NaN;
    }
    double raw = f.of(ceiling.stepLatency(), ceiling.endToEnd());
    return raw > 0 ? f.of(baton.stepLatency(), baton.endToEnd()) / raw : Double.NaN;
  }

  // --- Markdown ---------------------------------------------------------------------------------------------------

  /** Its row of the throughput table. */
  String throughputRow() {
    return "| fixed rate, " + name + " (" + f0(baton.targetWorkflowsPerSecond()) + " workflows/s, "
        + f0(baton.seconds()) + " s) | " + f0(baton.stepsPerSecond()) + " steps/s, " + f0(baton.startsPerSecond())
        + " starts/s (max start lag " + f0(baton.maxStartLagMs()) + " ms) | " + (ceiling == null ? ""
        : f0(ceiling.stepsPerSecond()) + " steps/s at the same rate") + " |  |\n";
  }

  /** Its rows of the latency table. */
  String latencyRows() {
    StringBuilder md = new StringBuilder();
    md.append(Report.latency("step, " + name, baton.stepLatency()));
    if (ceiling != null) {
      md.append(Report.latency("step, ceiling at the same rate (raw pipeline, JVM clock)", ceiling.stepLatency()));
    }
    md.append(Report.latency("end to end, " + name, baton.endToEnd()));
    if (ceiling != null) {
      md.append(Report.latency("end to end, ceiling at the same rate (raw pipeline, JVM clock)",
          ceiling.endToEnd()));
    }
    return md.toString();
  }

  /** Its rows of the table of latency against the raw pipeline: each figure, the ratio, and its target if it has one. */
  String againstRawRows() {
    StringBuilder md = new StringBuilder();
    String at = name + " (" + f0(baton.targetWorkflowsPerSecond()) + " workflows/s): ";
    for (Figure f : Figure.values()) {
      double raw = ceiling == null ? Double.NaN : f.of(ceiling.stepLatency(), ceiling.endToEnd());
      String target = targets.stream().filter(t -> t.figure == f).map(t -> t.describe(this)).findFirst().orElse("");
      md.append("| ").append(at).append(f.label).append(" | ").append(f1(f.of(baton.stepLatency(), baton.endToEnd())))
          .append(" | ").append(ceiling == null ? "not run" : f1(raw)).append(" | ")
          .append(ceiling == null ? "" : "**" + f2(ratio(f)) + "**").append(" | ").append(target).append(" |\n");
    }
    return md.toString();
  }

  /** Its rows of the resources table. */
  String usageRows() {
    return Report.usage(name, baton.usage())
        + (ceiling == null ? "" : Report.usage("ceiling at the " + name, ceiling.usage()));
  }

  /** Its rows of the CPU-per-step table. */
  String perStepRows() {
    return Report.perStep(name, baton.usage().perStep(baton.stepsPerSecond()))
        + (ceiling == null ? "" : Report.perStep("ceiling at the " + name,
            ceiling.usage().perStep(ceiling.stepsPerSecond())));
  }

  /** Where a step's time goes at this rate, hop by hop; empty when not measured. */
  String hopsTable() {
    if (baton.hops().isEmpty()) {
      return "";
    }
    StringBuilder md = new StringBuilder("\n| where a step's time goes at " + name + " (ms; runtime hop timers and step "
        + "rows) | mean | p50 | p99 | samples |\n|---|---|---|---|---|\n");
    for (Hops.Hop hop : baton.hops()) {
      md.append("| ").append(hop.name()).append(" | ").append(f1(hop.meanMs())).append(" | ")
          .append(Double.isNaN(hop.p50Ms()) ? "" : f1(hop.p50Ms())).append(" | ")
          .append(Double.isNaN(hop.p99Ms()) ? "" : f1(hop.p99Ms())).append(" | ").append(hop.samples())
          .append(" |\n");
    }
    return md.toString();
  }

  // --- JSON -------------------------------------------------------------------------------------------------------

  ObjectNode json() {
    ObjectNode h = Json.PRETTY.createObjectNode();
    num(h, "targetWorkflowsPerSecond", baton.targetWorkflowsPerSecond());
    num(h, "seconds", baton.seconds());
    num(h, "startsPerSecond", baton.startsPerSecond());
    num(h, "stepsPerSecond", baton.stepsPerSecond());
    num(h, "maxStartLagMs", baton.maxStartLagMs());
    h.set("stepLatencyMs", percentiles(baton.stepLatency()));
    h.set("endToEndLatencyMs", percentiles(baton.endToEnd()));
    if (ceiling != null) {
      h.set("ceilingStepLatencyMs", percentiles(ceiling.stepLatency()));
      h.set("ceilingEndToEndLatencyMs", percentiles(ceiling.endToEnd()));
      h.set("ceilingResources", Report.usage(ceiling.usage()));
      h.set("ceilingCpuPerStepMs", Report.perStep(ceiling.usage().perStep(ceiling.stepsPerSecond())));
    }
    for (Figure f : Figure.values()) {
      num(h, f.json + "ToCeiling", ratio(f));
    }
    ArrayNode t = h.putArray("targets");
    for (Target target : targets) {
      ObjectNode o = t.addObject();
      o.put("figure", target.json);
      o.put("atMost", target.atMost);
      double v = target.value(this);
      num(o, "value", v);
      if (Double.isNaN(v)) {
        o.putNull("met");
      } else {
        o.put("met", v <= target.atMost);
      }
    }
    h.set("resources", Report.usage(baton.usage()));
    h.set("cpuPerStepMs", Report.perStep(baton.usage().perStep(baton.stepsPerSecond())));
    ArrayNode hops = h.putArray("hops");
    for (Hops.Hop hop : baton.hops()) {
      ObjectNode o = hops.addObject();
      o.put("hop", hop.name());
      num(o, "meanMs", hop.meanMs());
      num(o, "p50Ms", hop.p50Ms());
      num(o, "p99Ms", hop.p99Ms());
      o.put("samples", hop.samples());
    }
    return h;
  }

}
