package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/** How the report puts the phases' figures together: the ratios and the fields the issue asks for, nulls when a phase did not run. */
class ReportTest {

  private static final Resources.Usage IDLE = new Resources.Usage(1, 1.5, 2, 0.5, 30, 64, 0.3, 0.2, 0.1, 0.05);
  private static final Percentiles LATENCY = new Percentiles(100, 2, 5, 9);

  @Test
  void sustainedIsComparedWithTheMeanOfTheCeilingWithStarts() {
    Report r = new Report(BenchConfig.defaults());
    r.drain = new BatonRun.Drain(5000, 1500, 0.5, 4, 2400, LATENCY, IDLE, IDLE);
    r.batch = new BatonRun.BatchStarts(5000, 1000, 2, 0.8, 6250, IDLE);
    r.sustained = new BatonRun.Sustained(400, 20, 1800, 600, 600, LATENCY, LATENCY, IDLE);
    r.half = RatePoint.half(new BatonRun.FixedRate(300, 20, 300, 900, 1, LATENCY, LATENCY, IDLE,
        java.util.List.of(new Hops.Hop("event waits", 0.4, Double.NaN, Double.NaN, 10))), null);
    r.ceilingWithStarts.add(new Ceiling.WithStarts(400, 20, 2200, 730, IDLE));
    r.ceilingWithStarts.add(new Ceiling.WithStarts(400, 20, 2600, 860, IDLE));
    r.ceilingRuns.add(3000.0);
    r.ceiling = 3000.0;

    JsonNode json = r.json();

    assertThat(json.path("sustained").path("stepsPerSecond").asDouble()).isEqualTo(1800);
    assertThat(json.path("starts").path("singlePerSecond").asDouble()).isEqualTo(1500);
    assertThat(json.path("starts").path("httpClients").asInt()).isEqualTo(32);
    assertThat(json.path("starts").path("batchPerSecond").asDouble()).isEqualTo(6250);
    assertThat(json.path("ceilingWithStarts").path("stepsPerSecond").asDouble()).isEqualTo(2400);
    assertThat(json.path("ceilingWithStarts").path("stepsPerSecondRuns").size()).isEqualTo(2);
    assertThat(json.path("ratioSustainedToCeiling").asDouble()).isEqualTo(0.75);
    assertThat(json.path("halfRate").path("stepLatencyMs").path("p50").asDouble()).isEqualTo(2);
    assertThat(json.path("halfRate").path("stepLatencyMs").path("p99").asDouble()).isEqualTo(9);
    assertThat(json.path("halfRate").path("hops").get(0).path("meanMs").asDouble()).isEqualTo(0.4);
    assertThat(json.path("halfRate").path("hops").get(0).path("p50Ms").isNull()).isTrue();
    // The fields that were there before stay.
    assertThat(json.path("stepsPerSecond").asDouble()).isEqualTo(2400);
    assertThat(json.path("ratioToCeiling").asDouble()).isEqualTo(0.8);
    assertThat(r.markdown()).contains("batch starts", "2,400 steps/s with starts", "**0.75**");
    assertThat(r.markdown()).as("each phase's busy CPUs, and what the hypervisor took besides")
        .contains("| 1.50 (+ 0.05) of 2 |");
  }

  @Test
  void cpuPerStepIsEachPartsCoresOverTheStepsItAppliedWithoutTheCompilers() {
    Resources.Usage u = new Resources.Usage(0.6, 1.8, 2, 8, 40, 160, 0.5, 0.4, 0.1, 0.05);

    Resources.PerStep atSaturation = u.perStep(2_000);
    Resources.PerStep atHalf = u.perStep(1_000);

    assertThat(atSaturation.jvmMs()).as("(0.6 - 0.1 JIT) cores / 2000 steps/s").isEqualTo(0.25);
    assertThat(atSaturation.postgresMs()).isEqualTo(0.25);
    assertThat(atSaturation.rabbitMs()).isEqualTo(0.2);
    assertThat(atSaturation.machineMs()).isEqualTo(0.9);
    assertThat(atHalf.machineMs()).as("the same cores over half the steps").isEqualTo(1.8);
    assertThat(u.perStep(0).machineMs()).as("no step, no figure").isNaN();
  }

  @Test
  void eachPhaseWithStepsSaysItsCpuPerStepBesideTheCeilings() {
    Report r = new Report(BenchConfig.defaults());
    r.sustained = new BatonRun.Sustained(400, 20, 1500, 500, 500, LATENCY, LATENCY, IDLE);
    r.half = RatePoint.half(new BatonRun.FixedRate(250, 20, 250, 750, 1, LATENCY, LATENCY, IDLE, java.util.List.of()),
        new Ceiling.FixedRate(250, 20, 750, LATENCY, LATENCY, IDLE));
    r.ceilingWithStarts.add(new Ceiling.WithStarts(400, 20, 3000, 1000, IDLE));

    JsonNode json = r.json();

    assertThat(json.path("sustained").path("cpuPerStepMs").path("machine").asDouble()).isEqualTo(1.0);
    assertThat(json.path("halfRate").path("cpuPerStepMs").path("machine").asDouble()).isEqualTo(2.0);
    assertThat(json.path("halfRate").path("ceilingCpuPerStepMs").path("postgres").asDouble()).isEqualTo(0.4);
    assertThat(json.path("ceilingWithStarts").path("cpuPerStepMs").path("jvm").asDouble()).isEqualTo(0.3);
    assertThat(r.markdown()).contains("| half rate | 1.20 | 0.40 | 0.27 | 2.00 |",
        "| ceiling with starts (first run) | 0.30 | 0.10 | 0.07 | 0.50 |");
  }

  @Test
  void theMachineIsBusyWhenItRunsSomethingAndWhatTheHypervisorTakesIsCountedApart() {
    Resources.CpuTimes before = new Resources.CpuTimes(1_000, 400, 50);
    Resources.CpuTimes after = new Resources.CpuTimes(2_000, 700, 150);

    assertThat(after.busyShareSince(before)).as("neither idle nor stolen").isEqualTo(0.6);
    assertThat(after.stealShareSince(before)).isEqualTo(0.1);
    assertThat(after.stealShareSince(null)).isNaN();
  }

  @Test
  void figuresOfPhasesThatDidNotRunAreNull() {
    Report r = new Report(BenchConfig.defaults());
    r.drain = new BatonRun.Drain(5000, 1500, 0.5, 4, 2400, LATENCY, IDLE, IDLE);

    JsonNode json = r.json();

    assertThat(json.path("starts").path("singlePerSecond").asDouble()).isEqualTo(1500);
    assertThat(json.path("starts").path("batchPerSecond").isNull()).isTrue();
    assertThat(json.path("ceilingWithStarts").path("stepsPerSecond").isNull()).isTrue();
    assertThat(json.path("ratioSustainedToCeiling").isNull()).isTrue();
    assertThat(json.path("ratioToCeiling").isNull()).isTrue();
    assertThat(json.has("halfRate")).isFalse();
    assertThat(json.has("lightRate")).isFalse();
  }

  @Test
  void latencyAtTheHalfRateIsAMultipleOfTheRawPipelinesAtTheSameRateBesideItsTargets() {
    Report r = new Report(BenchConfig.defaults());
    // Baton: step p50 6 ms, p99 30 ms; the raw pipeline at the same rate: 4 ms and 10 ms.
    r.half = RatePoint.half(new BatonRun.FixedRate(300, 20, 300, 900, 1, new Percentiles(900, 6, 20, 30),
        new Percentiles(300, 20, 50, 80), IDLE, java.util.List.of()),
        new Ceiling.FixedRate(300, 20, 900, new Percentiles(900, 4, 8, 10), new Percentiles(300, 12, 25, 30), IDLE));

    JsonNode half = r.json().path("halfRate");

    assertThat(half.path("stepP50ToCeiling").asDouble()).isEqualTo(1.5);
    assertThat(half.path("stepP99ToCeiling").asDouble()).isEqualTo(3.0);
    assertThat(half.path("ceilingEndToEndLatencyMs").path("p50").asDouble()).isEqualTo(12);
    assertThat(half.path("targets").get(0).path("figure").asText()).isEqualTo("stepP50ToCeiling");
    assertThat(half.path("targets").get(0).path("atMost").asDouble()).isEqualTo(2.0);
    assertThat(half.path("targets").get(0).path("met").asBoolean()).isTrue();
    assertThat(half.path("targets").get(1).path("atMost").asDouble()).isEqualTo(2.5);
    assertThat(half.path("targets").get(1).path("met").asBoolean()).isFalse();
    assertThat(half.path("ceilingStepLatencyMs").path("p50").asDouble()).as("the field that was there before stays")
        .isEqualTo(4);
    assertThat(r.markdown()).contains("| half rate (300 workflows/s): step p50 | 6.0 | 4.0 | **1.50** | ≤ 2.0×: met |",
        "| half rate (300 workflows/s): step p99 | 30.0 | 10.0 | **3.00** | ≤ 2.5×: **not met** |");
  }

  @Test
  void theLightLoadPointSaysItsEndToEndBesideTheRawPipelinesAndItsTarget() {
    Report r = new Report(BenchConfig.defaults());
    r.light = RatePoint.light(new BatonRun.FixedRate(150, 20, 150, 450, 1, new Percentiles(900, 2, 3, 4),
        new Percentiles(3000, 5.5, 8, 9), IDLE, java.util.List.of()),
        new Ceiling.FixedRate(150, 20, 450, new Percentiles(900, 1, 2, 3), new Percentiles(3000, 2.75, 4, 4.5), IDLE));

    JsonNode light = r.json().path("lightRate");

    assertThat(light.path("targetWorkflowsPerSecond").asDouble()).isEqualTo(150);
    assertThat(light.path("endToEndLatencyMs").path("p50").asDouble()).isEqualTo(5.5);
    assertThat(light.path("ceilingEndToEndLatencyMs").path("p99").asDouble()).isEqualTo(4.5);
    assertThat(light.path("endToEndP50ToCeiling").asDouble()).isEqualTo(2.0);
    assertThat(light.path("stepP50ToCeiling").asDouble()).isEqualTo(2.0);
    assertThat(light.path("targets").get(0).path("figure").asText()).isEqualTo("endToEndP50Ms");
    assertThat(light.path("targets").get(0).path("value").asDouble()).isEqualTo(5.5);
    assertThat(light.path("targets").get(0).path("met").asBoolean()).isTrue();
    assertThat(r.markdown()).contains("| fixed rate, light load (150 workflows/s, 20 s) | 450 steps/s",
        "| end to end, light load | 5.5 |",
        "| light load (150 workflows/s): end to end p50 | 5.5 | 2.8 | **2.00** | ≤ 6 ms: met |");
  }

  @Test
  void aTargetOnARatioIsUnknownWithoutTheRawPipeline() {
    Report r = new Report(BenchConfig.defaults());
    r.half = RatePoint.half(new BatonRun.FixedRate(300, 20, 300, 900, 1, LATENCY, LATENCY, IDLE,
        java.util.List.of()), null);

    JsonNode half = r.json().path("halfRate");

    assertThat(half.path("stepP50ToCeiling").isNull()).isTrue();
    assertThat(half.path("targets").get(0).path("met").isNull()).isTrue();
    assertThat(r.markdown()).contains("| half rate (300 workflows/s): step p50 | 2.0 | not run |  | ≤ 2.0× |");
  }
}
