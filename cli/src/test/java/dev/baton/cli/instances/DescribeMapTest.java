package dev.baton.cli.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.LastError;
import dev.baton.httpapi.StepDocument;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code baton describe} of an instance with a map: its iterations folded, a screenful whatever the items. */
class DescribeMapTest {

  static final Instant T = Instant.parse("2026-12-05T10:00:00Z");

  /**
   * {@code reserve}, then {@code ship-items} over {@code items} items, whose iterations run {@code ship-one}: the
   * first {@code succeeded} succeeded, then {@code running}, then {@code failed} (the rest not started).
   */
  static InstanceDocument shipping(int items, int succeeded, int running, int failed, String lastErrorStep) {
    List<StepDocument> steps = new ArrayList<>();
    steps.add(new StepDocument("reserve", "task", null, "reserve", "SUCCEEDED", 1, T, T.plusSeconds(1), null, null,
        null, null, "m-0", null));
    steps.add(new StepDocument("ship-items", "map", null, null, failed > 0 ? "FAILED" : "RUNNING", 1,
        T.plusSeconds(1), null, null, null, null, null, null, items));
    for (int i = 0; i < succeeded + running + failed; i++) {
      String status = i < succeeded ? "SUCCEEDED" : i < succeeded + running ? "RUNNING" : "FAILED";
      Instant end = "RUNNING".equals(status) ? null : T.plusSeconds(3);
      StepDocument.StepError error = "FAILED".equals(status)
          ? new StepDocument.StepError("NO_PARCELS", "none left for item " + i) : null;
      steps.add(new StepDocument("ship-items[" + i + "]", "iteration", "ship-items", null, status, 1,
          T.plusSeconds(1), end, null, null, null, null, null, null));
      steps.add(new StepDocument("ship-one[" + i + "]", "task", "ship-items[" + i + "]", "ship", status, 1,
          T.plusSeconds(1), end, null, error, null, null, "m-" + (i + 1), null));
    }
    LastError lastError = lastErrorStep == null ? null
        : new LastError(lastErrorStep, "task", "ship", 1, "FAILED", "NO_PARCELS", "none left", T.plusSeconds(3));
    return new InstanceDocument("i-1", "shop", "shipping", 1, "order-7", null, failed > 0 ? "FAILED" : "RUNNING",
        "FORWARD", "ship-items", 1, T.plusSeconds(1), null, null, lastError, T, T, null, null, null, null, steps,
        null);
  }

  static String describe(InstanceDocument i) {
    StringWriter out = new StringWriter();
    Instances.describe(new PrintWriter(out), i, T.plusSeconds(60));
    return out.toString();
  }

  /** The ITEM column of the iterations' lines, in order. */
  static List<String> listed(String text) {
    List<String> items = new ArrayList<>();
    boolean inTable = false;
    for (String line : text.split("\n")) {
      if (line.startsWith("ITEM ")) {
        inTable = true;
      } else if (inTable && !line.isBlank() && Character.isDigit(line.charAt(0))) {
        items.add(line.split("\\s+")[0]);
      } else {
        inTable = false;
      }
    }
    return items;
  }

  @Test
  void waitingOnNamesTheStepsInFlightNotTheLastOneStarted() {
    String text = describe(shipping(10, 3, 5, 0, null));

    assertThat(text).contains("Waiting on:   ship-one[3], attempt 1; ship-one[4]; ship-one[5] and 2 more, since");
  }

  @Test
  void aMapShowsItsIterationsFoldedWithCountsByStatusAndAtMostTwentyOfThem() {
    String text = describe(shipping(1000, 940, 50, 10, null));

    assertThat(text).contains(
        "Iterations of ship-items: 1,000 items: 940 succeeded, 50 running, 10 failed, 0 not started");
    assertThat(listed(text)).hasSize(Instances.ITERATIONS_LISTED)
        .startsWith("990", "991", "992", "993", "994", "995", "996", "997", "998", "999", "940");
    assertThat(text).contains("... 980 more iterations started (-o json shows every one)")
        .containsPattern("990\\s+FAILED\\s+\\S+\\s+2\\.0s\\s+ship-one\\[990]\\s+FAILED\\s+NO_PARCELS: none left"
            + " for item 990");
    assertThat(text.lines().count()).as("a screenful, not a line per attempt").isLessThan(50);
  }

  @Test
  void theTimelineHasTheMapsRowButNoRowOfItsIterations() {
    String text = describe(shipping(3, 2, 1, 0, null));

    assertThat(text).containsPattern("\\n2\\s+ship-items\\s+map\\s")
        .doesNotContainPattern("\\n\\d+\\s+ship-items\\[").doesNotContainPattern("\\n\\d+\\s+ship-one\\[");
    assertThat(listed(text)).containsExactly("2", "0", "1");
    assertThat(text).doesNotContain("more iterations");
  }

  @Test
  void theIterationTheLastErrorNamesIsListedFirst() {
    String text = describe(shipping(100, 0, 0, 60, "ship-one[42]"));

    assertThat(text).contains("Last error:   ship-one[42] (ship, attempt 1): FAILED NO_PARCELS: none left");
    assertThat(listed(text)).startsWith("42", "0", "1");
  }

  @Test
  void aMapWithNoIterationStartedSaysSoInOneLine() {
    String text = describe(shipping(5, 0, 0, 0, null));

    assertThat(text).contains("Iterations of ship-items: 5 items: 0 succeeded, 0 running, 0 failed, 5 not started")
        .doesNotContain("ITEM ");
  }
}
