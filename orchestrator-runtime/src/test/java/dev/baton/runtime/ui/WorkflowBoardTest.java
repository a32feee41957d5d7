package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.baton.runtime.store.RunningSteps;
import dev.baton.runtime.ui.WorkflowBoard.Count;
import dev.baton.runtime.ui.WorkflowBoard.Definition;
import dev.baton.runtime.ui.WorkflowBoard.Occupancy;
import dev.baton.runtime.ui.WorkflowBoard.Row;
import dev.baton.runtime.ui.WorkflowBoard.StepLine;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The workflows page's numbers: counts by status and who is at which step. */
class WorkflowBoardTest {

  static final Duration T1 = Duration.ofMinutes(7);
  static final Duration T2 = Duration.ofMinutes(2);

  @Test
  void countsEveryStatusInOrderWithZerosAndSumsTheTotal() {
    WorkflowBoard board = WorkflowBoard.of(
        List.of(new Definition("default", "orders", List.of("reserve", "charge"), 2)),
        List.of(new Count("default", "orders", "SUCCEEDED", 40), new Count("default", "orders", "RUNNING", 3),
            new Count("default", "orders", "COMPENSATED", 2), new Count("default", "other", "FAILED", 0)),
        List.of());
    assertThat(board.rows()).hasSize(1); // a zero count alone does not make a row
    Row r = board.rows().get(0);
    assertThat(r.counts().keySet()).containsExactly("RUNNING", "COMPENSATING", "SUCCEEDED", "FAILED", "COMPENSATED",
        "CANCELLED");
    assertThat(r.counts().values()).containsExactly(3L, 0L, 40L, 0L, 2L, 0L);
    assertThat(r.total()).isEqualTo(45);
    assertThat(r.revision()).isEqualTo(2);
    assertThat(r.deleted()).isFalse();
  }

  @Test
  void aPausedWorkflowSaysSoOnItsRow() {
    WorkflowBoard board = WorkflowBoard.of(
        List.of(new Definition("default", "orders", List.of("reserve"), 1, true),
            new Definition("default", "returns", List.of("refund"), 1)), List.of(), List.of());

    assertThat(board.rows()).extracting(Row::paused).containsExactly(true, false);
    assertThat(WorkflowsView.live(board)).containsOnlyOnce("data-paused=\"true\"")
        .contains(">paused</span>");
  }

  @Test
  void aScheduledWorkflowSaysWhenItsNextFireIs() {
    WorkflowBoard board = WorkflowBoard.of(List.of(new Definition("default", "reconcile", List.of("audit"), 1, false,
        new WorkflowBoard.NextFire("nightly", java.time.Instant.parse("2026-12-06T01:00:00Z")))), List.of(), List.of());

    assertThat(WorkflowsView.live(board)).contains("data-next-fire=\"2026-12-06T01:00:00Z\"",
        "next: nightly at 2026-12-06 01:00:00 UTC");
  }

  @Test
  void aStepWhoseCommandsWaitForCapacitySaysHowMany() {
    WorkflowBoard board = WorkflowBoard.of(
        List.of(new Definition("default", "orders", List.of("reserve", "charge"), 1)),
        List.of(new Count("default", "orders", "RUNNING", 9)),
        List.of(new Occupancy("default", "orders", "charge", false, 9, T1)),
        Map.of("default/orders/charge", 6L));

    assertThat(board.rows().get(0).steps()).extracting(StepLine::step, StepLine::waitingForCapacity)
        .containsExactly(tuple("reserve", 0L),
            tuple("charge", 6L));
    assertThat(WorkflowsView.live(board)).contains("data-waiting-capacity=\"6\"", "6 waiting for capacity");
  }

  @Test
  void listsEveryStepInSpecOrderWithHowManyAreThereAndTheOldestArrival() {
    WorkflowBoard board = WorkflowBoard.of(
        List.of(new Definition("default", "orders", List.of("reserve", "charge", "ship"), 1)),
        List.of(new Count("default", "orders", "RUNNING", 5)),
        List.of(new Occupancy("default", "orders", "charge", false, 3, T2),
            new Occupancy("default", "orders", "reserve", true, 1, T1),
            new Occupancy("default", "orders", "charge", false, 1, T1),
            new Occupancy("default", "orders", "legacy-step", false, 1, T2)));
    assertThat(board.rows().get(0).steps()).containsExactly(
        new StepLine("reserve", false, 0, null),
        new StepLine("charge", false, 4, T1),
        new StepLine("ship", false, 0, null),
        new StepLine("reserve", true, 1, T1),
        new StepLine("legacy-step", false, 1, T2));
  }

  @Test
  void theStepsOfAMapsIterationsCountAtTheirStepOfTheDefinitionAndTheMapAndItsIterationsNowhere() {
    StepTree tree = StepTree.of(MapInstances.SPEC);
    assertThat(tree.places()).containsExactly("reserve", "ship-one");
    assertThat(tree.groups()).containsExactly("ship-items");
    Set<String> groups = Set.of("shop/shipping/ship-items");
    List<Occupancy> at = Stream.of(
            new RunningSteps.Group("shop", "shipping", "ship-one[3]", 1, 30, null),
            new RunningSteps.Group("shop", "shipping", "ship-one[7]", 1, 420, null),
            new RunningSteps.Group("shop", "shipping", "ship-items[3]", 2, 500, null),
            new RunningSteps.Group("shop", "shipping", "ship-items", 1, 500, null),
            new RunningSteps.Group("shop", "shipping", "ship-one[2]/compensate", 1, 5, null))
        .map(g -> UiQueries.at(g, groups)).flatMap(Optional::stream).toList();

    WorkflowBoard board = WorkflowBoard.of(List.of(new Definition("shop", "shipping", tree.places(), 1)), List.of(),
        at);

    assertThat(board.rows().get(0).steps()).containsExactly(
        new StepLine("reserve", false, 0, null),
        new StepLine("ship-one", false, 2, Duration.ofSeconds(420)),
        new StepLine("ship-one", true, 1, Duration.ofSeconds(5)));
  }

  @Test
  void aDeletedWorkflowWithInstancesLeftStillShowsMarkedAsDeleted() {
    WorkflowBoard board = WorkflowBoard.of(List.of(new Definition("default", "b", List.of(), null)),
        List.of(new Count("default", "a", "RUNNING", 1)), List.of(new Occupancy("default", "a", "x", false, 1, T1)));
    assertThat(board.rows()).extracting(Row::name).containsExactly("a", "b");
    assertThat(board.rows().get(0).deleted()).isTrue();
    assertThat(board.rows().get(0).revision()).isNull();
    assertThat(board.rows().get(1).deleted()).isFalse();
    assertThat(board.rows().get(1).total()).isZero();
  }
}
