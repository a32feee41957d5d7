package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the harness from rotting: it runs for a few seconds on a tiny instance count against the real RabbitMQ and
 * PostgreSQL and checks that the report files exist with the fields and sane values. No timed assertion: the
 * figures themselves depend on the machine.
 */
class BenchSmokeIT {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void mainRunWritesTheReport(@TempDir Path out) throws Exception {
    int exit = BenchMain.run("--instances", "30", "--warm-up", "30", "--jit-settle", "5s", "--duration", "2s", "--warmup", "1s", "--in-flight", "10",
        "--http-clients", "2", "--out", out.toString());
    assertThat(exit).isZero();

    assertThat(out.resolve("report.md")).exists();
    String md = Files.readString(out.resolve("report.md"));
    assertThat(md).contains("Baton / ceiling", "step loop at saturation", "end to end", "half rate",
        "fixed rate, light load (150 workflows/s", "latency against the raw pipeline", "≤ 6 ms");

    JsonNode r = JSON.readTree(out.resolve("report.json").toFile());
    for (String field : new String[] {"stepsPerSecond", "workflowsPerSecond", "ceilingStepsPerSecond",
        "ratioToCeiling"}) {
      assertThat(r.path(field).isNumber()).as(field).isTrue();
      assertThat(r.path(field).asDouble()).as(field).isPositive();
    }
    assertThat(r.path("workflowsPerSecond").asDouble() * 3)
        .isCloseTo(r.path("stepsPerSecond").asDouble(), org.assertj.core.data.Offset.offset(0.1));
    JsonNode latency = r.path("latencyMs");
    for (String p : new String[] {"p50", "p95", "p99"}) {
      assertThat(latency.path(p).isNumber()).as(p).isTrue();
      assertThat(latency.path(p).asDouble()).as(p).isGreaterThanOrEqualTo(0);
    }
    assertThat(latency.path("p50").asDouble()).isLessThanOrEqualTo(latency.path("p99").asDouble());
    assertThat(r.path("drain").path("instances").asInt()).isEqualTo(30);
    assertThat(r.path("halfRate").path("endToEndLatencyMs").path("samples").asLong()).isPositive();
    assertThat(r.path("sustained").path("resources").path("jvmCores").asDouble()).isPositive();
    // Read off /proc/stat: what the hypervisor took, per phase and over the run (zero on a host that takes none).
    JsonNode steal = r.path("sustained").path("resources").path("stealCores");
    assertThat(steal.isNumber()).as("stealCores").isTrue();
    assertThat(steal.asDouble()).isBetween(0.0, 2.0);
    JsonNode stealShare = r.path("machine").path("stealShareDuringRun");
    assertThat(stealShare.isNumber()).as("stealShareDuringRun").isTrue();
    assertThat(stealShare.asDouble()).isBetween(0.0, 1.0);
    assertThat(r.path("startFailures").asLong()).isZero();
    // What each part spent per step, where steps were applied: the machine's CPU holds the other three.
    for (String phase : new String[] {"drain", "sustained", "halfRate"}) {
      JsonNode perStep = r.path(phase).path("cpuPerStepMs");
      assertThat(perStep.path("machine").isNumber()).as(phase + ".cpuPerStepMs.machine").isTrue();
      assertThat(perStep.path("machine").asDouble()).as(phase).isPositive()
          .isGreaterThanOrEqualTo(perStep.path("postgres").asDouble());
    }
    for (String field : new String[] {"sustained.stepsPerSecond", "starts.singlePerSecond", "starts.batchPerSecond",
        "ceilingWithStarts.stepsPerSecond", "halfRate.stepLatencyMs.p50", "halfRate.stepLatencyMs.p99",
        "halfRate.stepP50ToCeiling", "halfRate.stepP99ToCeiling", "lightRate.stepLatencyMs.p50",
        "lightRate.endToEndLatencyMs.p50", "lightRate.endToEndLatencyMs.p99", "lightRate.ceilingStepLatencyMs.p50",
        "lightRate.ceilingEndToEndLatencyMs.p50", "lightRate.endToEndP50ToCeiling"}) {
      JsonNode v = r;
      for (String part : field.split("\\.")) {
        v = v.path(part);
      }
      assertThat(v.isNumber()).as(field).isTrue();
    }
    assertThat(r.path("ratioSustainedToCeiling").asDouble()).isPositive();
    // The ceiling's starts came over HTTP from the same load generator, and were answered.
    assertThat(r.path("ceilingWithStarts").path("startsPerSecond").asDouble()).isPositive();
    assertThat(r.path("lightRate").path("targetWorkflowsPerSecond").asDouble()).isEqualTo(150);
    assertThat(r.path("lightRate").path("targets").get(0).path("atMost").asDouble()).isEqualTo(6);
    assertThat(r.path("lightRate").path("ceilingEndToEndLatencyMs").path("samples").asLong()).isPositive();
    JsonNode hops = r.path("halfRate").path("hops");
    assertThat(hops.size()).isGreaterThanOrEqualTo(8);
    assertThat(hops.get(0).path("hop").asText()).isNotBlank();
    assertThat(hops.get(0).path("samples").asLong()).isPositive();
  }

  @Test
  void theMapBesideTheLineRunsSmall(@TempDir Path out) throws Exception {
    // 20 x 3 / 2 = 30 tasks a point: 6 instances of a map of 5 items, 6 of 5 tasks in a line.
    int exit = BenchMain.run("--phases", "none", "--sweep", "map", "--map-items", "5", "--instances", "20",
        "--warm-up", "10", "--jit-settle", "0s", "--http-clients", "2", "--out", out.toString());
    assertThat(exit).isZero();

    JsonNode map = JSON.readTree(out.resolve("report.json").toFile()).path("mapShape");
    assertThat(map.path("items").asInt()).isEqualTo(5);
    assertThat(map.path("instances").asInt()).isEqualTo(6);
    assertThat(map.path("maxConcurrency").isNull()).isTrue();
    for (String field : new String[] {"linearStepsPerSecond", "mapStepsPerSecond", "drainRatio",
        "linearStartToFinishStepsPerSecond", "mapStartToFinishStepsPerSecond", "startToFinishRatio"}) {
      assertThat(map.path(field).asDouble()).as(field).isPositive();
    }
    assertThat(Files.readString(out.resolve("report.md"))).contains("map of 5 items", "Map: a map of 5 items");
  }

  @Test
  void growthAndOperatorSweepsRunSmall(@TempDir Path out) throws Exception {
    int exit = BenchMain.run("--sweep", "growth,operator", "--instances", "20", "--warm-up", "20", "--jit-settle", "0s", "--growth-rows", "2000",
        "--operator-services", "3", "--operator-workflows", "2", "--operator-resync", "2s", "--out", out.toString());
    assertThat(exit).isZero();

    JsonNode r = JSON.readTree(out.resolve("report.json").toFile());
    JsonNode growth = r.path("growth");
    assertThat(growth.path("rows").asLong()).isEqualTo(2000);
    assertThat(growth.path("grownStepsPerSecond").asDouble()).isPositive();
    assertThat(growth.path("purgedDuringDrain").asLong()).isPositive();
    assertThat(growth.path("queries").size()).isGreaterThanOrEqualTo(4);

    JsonNode operator = r.path("operator");
    assertThat(operator.path("workerServices").asInt()).isEqualTo(3);
    assertThat(operator.path("secondsToReady").asDouble()).isPositive();
    assertThat(operator.path("kubeCallsToReady").asLong()).isPositive();
    assertThat(operator.path("brokerCallsToReady").asLong()).isPositive();
    assertThat(Files.readString(out.resolve("report.md"))).contains("Operator at scale", "Cost of growth");
  }
}
