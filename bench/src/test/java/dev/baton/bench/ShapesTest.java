package dev.baton.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.api.json.Json;
import dev.baton.api.v1alpha1.StepSpec;
import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.api.validation.Validated;
import dev.baton.workflow.Step;
import dev.baton.workflow.WorkflowDefinition;
import dev.baton.workflow.WorkflowParser;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Workflows the shape sweep measures, their input, and how the report puts the map beside the line. */
class ShapesTest {

  private static final BenchConfig LINE_OF_100 = BenchConfig.defaults().withSteps(100).withInstances(150)
      .withCommands(1).withItems(100);
  private static final BenchConfig MAP_OF_100 = LINE_OF_100.withShape(BenchConfig.Shape.MAP);

  @Test
  void theMapIsOneStepOverTheInputItemsWithOneTaskAndEveryIterationAtOnce() {
    WorkflowSpec spec = Stack.spec(MAP_OF_100);

    assertThat(spec.getSteps()).hasSize(1);
    StepSpec map = spec.getSteps().get(0);
    assertThat(map.getMap().getItems()).isEqualTo("input.items");
    assertThat(map.getMap().getMaxConcurrency()).as("unset: all at once").isNull();
    assertThat(map.getMap().getSteps()).singleElement().satisfies(task -> {
      assertThat(task.getService()).isEqualTo("bench-s0");
      assertThat(task.getCommand()).isEqualTo("step0");
      assertThat(task.getTimeout()).isEqualTo("5m");
    });
    Step.Map parsed = (Step.Map) runnable(spec).steps().get(0);
    assertThat(parsed.maxConcurrency()).isZero();
    assertThat(parsed.steps()).singleElement().isInstanceOf(Step.Task.class);
    assertThat(Stack.spec(MAP_OF_100.withMapConcurrency(10)).getSteps().get(0).getMap().getMaxConcurrency())
        .isEqualTo(10);
  }

  @Test
  void theLineBesideItRunsTheMapsOneCommandAsManyTimesAndTheWorkersAnswerThatCommand() {
    WorkflowSpec line = Stack.spec(LINE_OF_100);

    assertThat(line.getSteps()).hasSize(100);
    assertThat(line.getSteps()).extracting(StepSpec::getCommand).containsOnly("step0");
    assertThat(line.getSteps()).extracting(StepSpec::getService).containsOnly("bench-s0");
    assertThat(line.getSteps().get(99).getName()).isEqualTo("s99");
    assertThat(runnable(line).steps()).hasSize(100);
    assertThat(Stack.commandsByService(line)).isEqualTo(Map.of("bench-s0", List.of("step0")));
    assertThat(Stack.commandsByService(Stack.spec(MAP_OF_100))).isEqualTo(Map.of("bench-s0", List.of("step0")));
    // The other shapes as before: a command per task, spread over three services.
    assertThat(Stack.commandsByService(Stack.spec(BenchConfig.defaults().withSteps(4))))
        .isEqualTo(Map.of("bench-s0", List.of("step0", "step3"), "bench-s1", List.of("step1"),
            "bench-s2", List.of("step2")));
  }

  @Test
  void theInputHoldsTheItemsWhenAsked() throws Exception {
    JsonNode input = Json.MAPPER.readTree(LINE_OF_100.input(7));

    assertThat(input.path("n").asLong()).isEqualTo(7);
    assertThat(input.path("items").size()).isEqualTo(100);
    assertThat(input.path("items").get(42).asInt()).isEqualTo(42);
    String plain = BenchConfig.defaults().input(7);
    assertThat(Json.MAPPER.readTree(plain).has("items")).isFalse();
    assertThat(plain).as("the payload sweep's size, as before").hasSize(300);
  }

  @Test
  void aMapNeedsAsManyItemsAsTasks() {
    assertThatThrownBy(() -> Stack.spec(MAP_OF_100.withItems(99))).isInstanceOf(IllegalArgumentException.class);
    assertThat(runnable(Stack.spec(3, "5m", BenchConfig.Shape.MAP)).steps()).singleElement()
        .isInstanceOf(Step.Map.class);
  }

  @Test
  void startToFinishCountsThePreloadTheRelayAndTheDrain() {
    // 150 instances started at 50/s (3 s), relayed 1 s later, drained in 6 s: 15,000 tasks in 10 s.
    BatonRun.Drain d = new BatonRun.Drain(150, 50, 1, 6, 2500, Percentiles.NONE, null, null);

    assertThat(Sweeps.startToFinish(d, 100)).isEqualTo(1500);
  }

  @Test
  void theReportPutsTheMapBesideTheLine() {
    Report r = new Report(BenchConfig.defaults());
    r.mapShape = new Report.MapShape(100, 0, 150, 90, 2000, 3000, 1600, 1200, 900, 40);
    r.sweeps.add(new Report.SweepPoint("shape", "linear of 100", 2000, null, 900, Percentiles.NONE,
        new Resources.Usage(1, 1.5, 2, 0.5, 30, 64, 0.3, 0.2, 0.1, 0.05)));
    r.sweepNotes.add(r.mapShape.note());

    JsonNode json = r.json().path("mapShape");

    assertThat(json.path("items").asInt()).isEqualTo(100);
    assertThat(json.path("maxConcurrency").isNull()).as("unset").isTrue();
    assertThat(json.path("tasks").asLong()).isEqualTo(15_000);
    assertThat(json.path("linearStepsPerSecond").asDouble()).isEqualTo(2000);
    assertThat(json.path("mapStepsPerSecond").asDouble()).isEqualTo(3000);
    assertThat(json.path("drainRatio").asDouble()).isEqualTo(1.5);
    assertThat(json.path("startToFinishRatio").asDouble()).isEqualTo(0.75);
    assertThat(json.path("mapStartsPerSecond").asDouble()).isEqualTo(40);
    assertThat(r.markdown()).contains("a map of 100 items (maxConcurrency unset: every iteration at once) at "
        + "**0.75** of the steps/s of 100 tasks in a line start to finish", "1.50 drained");
    assertThat(new Report(BenchConfig.defaults()).json().has("mapShape")).as("not run: absent").isFalse();
  }

  private static WorkflowDefinition runnable(WorkflowSpec spec) {
    Validated<WorkflowDefinition> v = WorkflowParser.parse("default", "bench", 1, spec);
    assertThat(v.problems()).isEmpty();
    return v.value();
  }
}
