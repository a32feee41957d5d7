package dev.baton.httpapi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.httpapi.MapIterations.Iteration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A map's rows in an instance document folded as readers show them: counts, not started, failed first. */
class MapIterationsTest {

  private static final Instant T = Instant.parse("2026-12-04T10:00:00Z");

  static StepDocument map(String name, String status, Integer itemCount) {
    return new StepDocument(name, "map", null, null, status, 1, T, null, null, null, null, null, null, itemCount);
  }

  static StepDocument iteration(String map, int index, String status) {
    return new StepDocument(map + "[" + index + "]", "iteration", map, null, status, 1, T, null, null, null, null,
        null, null, null);
  }

  static StepDocument step(String name, String kind, String parent, String status, int attempt, String reason) {
    return new StepDocument(name, kind, parent, "do-" + name, status, attempt, T, null, null,
        reason == null ? null : new StepDocument.StepError("NO_PARCELS", reason), null, null, null, null);
  }

  /** Iteration {@code index} of {@code ship-items} with its one task, {@code ship-one[index]}, in that status. */
  static List<StepDocument> shipped(int index, String status) {
    return List.of(iteration("ship-items", index, status), step("ship-one[" + index + "]", "task",
        "ship-items[" + index + "]", status, 1, "FAILED".equals(status) ? "none left" : null));
  }

  @Test
  void aMapShowsItsIterationsFoldedWithCountsByStatus() {
    List<StepDocument> steps = new ArrayList<>();
    steps.add(map("ship-items", "RUNNING", 1000));
    for (int i = 0; i < 1000; i++) {
      steps.addAll(shipped(i, i < 940 ? "SUCCEEDED" : i < 990 ? "RUNNING" : "FAILED"));
    }

    MapIterations shipItems = MapIterations.of(steps).get("ship-items");

    assertThat(shipItems.summary()).isEqualTo("1,000 items: 940 succeeded, 50 running, 10 failed, 0 not started");
    assertThat(shipItems.counts()).containsExactly(Map.entry("SUCCEEDED", 940), Map.entry("RUNNING", 50),
        Map.entry("FAILED", 10));
    assertThat(shipItems.anyFailed()).isTrue();
    assertThat(shipItems.map().status()).isEqualTo("RUNNING");
  }

  @Test
  void itemsWhoseIterationHasNotStartedAreCountedFromTheItemCount() {
    List<StepDocument> steps = new ArrayList<>(List.of(map("ship-items", "RUNNING", 10)));
    steps.addAll(shipped(0, "SUCCEEDED"));
    steps.addAll(shipped(1, "RUNNING"));
    steps.addAll(shipped(2, "CANCELLED"));

    MapIterations shipItems = MapIterations.of(steps).get("ship-items");

    assertThat(shipItems.notStarted()).isEqualTo(7);
    assertThat(shipItems.summary())
        .isEqualTo("10 items: 1 succeeded, 1 running, 0 failed, 1 cancelled, 7 not started");
    assertThat(shipItems.anyFailed()).isFalse();
    assertThat(MapIterations.of(List.of(map("one", "RUNNING", 1))).get("one").summary())
        .isEqualTo("1 item: 0 succeeded, 0 running, 0 failed, 1 not started");
  }

  @Test
  void aMapWhoseItemsCouldNotBeEvaluatedSaysItsItemsAreNotKnown() {
    assertThat(MapIterations.of(List.of(map("ship-items", "FAILED", null))).get("ship-items").summary())
        .isEqualTo("items not known: 0 succeeded, 0 running, 0 failed");
  }

  @Test
  void failedIterationsComeFirstThenRunningThenCancelledThenSucceededEachByIndex() {
    List<StepDocument> steps = new ArrayList<>(List.of(map("ship-items", "RUNNING", 6)));
    String[] statuses = {"SUCCEEDED", "RUNNING", "FAILED", "CANCELLED", "TIMED_OUT", "FAILED"};
    for (int i = 0; i < statuses.length; i++) {
      steps.addAll(shipped(i, statuses[i]));
    }

    List<Iteration> iterations = MapIterations.of(steps).get("ship-items").iterations();

    assertThat(iterations).extracting(Iteration::index).containsExactly(2, 4, 5, 1, 3, 0);
    assertThat(iterations).extracting(Iteration::failed).containsExactly(true, true, true, false, false, false);
  }

  @Test
  void anIterationHoldsTheLatestAttemptOfEachStepInsideItInTheOrderTheyStarted() {
    List<StepDocument> steps = List.of(
        map("ship-items", "RUNNING", 1),
        iteration("ship-items", 0, "RUNNING"),
        step("pack-one[0]", "task", "ship-items[0]", "TIMED_OUT", 1, null),
        step("checks[0]", "parallel", "ship-items[0]", "SUCCEEDED", 1, null),
        step("label[0]", "task", "checks[0]", "SUCCEEDED", 1, null), // in a group inside the iteration
        step("pack-one[0]", "task", "ship-items[0]", "SUCCEEDED", 2, null),
        step("ship-one[0]", "task", "ship-items[0]", "FAILED", 1, "none left"),
        step("pack-one[0]/compensate", "task", "ship-items[0]", "RUNNING", 1, null));

    Iteration first = MapIterations.of(steps).get("ship-items").iterations().get(0);

    assertThat(first.index()).isZero();
    assertThat(first.steps()).extracting(StepDocument::name)
        .containsExactly("checks[0]", "label[0]", "pack-one[0]", "ship-one[0]", "pack-one[0]/compensate");
    assertThat(first.steps().get(2).attempt()).isEqualTo(2);
  }

  @Test
  void onlyTheRowsOfIterationsAreFoldedAwayFromAReadersListOfSteps() {
    for (String name : new String[] {"ship-items[3]", "ship-one[3]", "ship-one[3]/compensate"}) {
      assertThat(MapIterations.inIteration(step(name, "task", null, "RUNNING", 1, null))).as(name).isTrue();
    }
    for (String name : new String[] {"ship-items", "ship-one", "reserve/compensate"}) {
      assertThat(MapIterations.inIteration(step(name, "task", null, "RUNNING", 1, null))).as(name).isFalse();
    }
  }

  @Test
  void twoMapsKeepTheirOwnIterationsAndTheStepALastErrorNamesLeadsToItsIteration() {
    List<StepDocument> steps = new ArrayList<>(List.of(map("ship-items", "SUCCEEDED", 1)));
    steps.addAll(shipped(0, "SUCCEEDED"));
    steps.add(map("bill-items", "FAILED", 2));
    steps.add(iteration("bill-items", 0, "SUCCEEDED"));
    steps.add(step("bill-one[0]", "task", "bill-items[0]", "SUCCEEDED", 1, null));
    steps.add(iteration("bill-items", 1, "FAILED"));
    steps.add(step("bill-one[1]", "task", "bill-items[1]", "FAILED", 1, "declined"));

    Map<String, MapIterations> maps = MapIterations.of(steps);

    assertThat(maps).containsOnlyKeys("ship-items", "bill-items");
    assertThat(maps.get("ship-items").iterations()).hasSize(1);
    assertThat(maps.get("bill-items").iterationOf("bill-one[1]")).map(Iteration::index).contains(1);
    assertThat(maps.get("ship-items").iterationOf("bill-one[1]")).isEmpty();
  }
}
