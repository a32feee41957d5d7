package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.LastError;
import dev.baton.runtime.http.ApiAuth.Access;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The instance page as HTML: a map's iterations folded under its row, the failure one click away. */
class InstanceDetailViewTest {

  static final Viewer VIEWER = new Viewer(Access.FULL, null, "csrf", true, false);

  static String page(InstanceDocument doc) {
    InstanceView v = InstanceViewAdapter.from(doc);
    StepPicture picture = StepPicture.layout(StepTree.of(MapInstances.SPEC), v.steps(), v.maps(), !v.active());
    return InstanceDetailView.live(v, picture, new InstanceDetailView.Abilities(true, true), VIEWER,
        MapInstances.T.plusSeconds(90), TraceLink.NONE);
  }

  @Test
  void aMapShowsItsIterationsFoldedWithCountsByStatus() {
    String html = page(MapInstances.shipping("RUNNING", "RUNNING", 1000, MapInstances.iterations(940, 50, 10)));

    assertThat(html).contains("<tr class=\"iterations\" id=\"iterations-ship-items\" data-map=\"ship-items\">")
        .contains("<summary>Iterations: 1,000 items: 940 succeeded, 50 running, 10 failed, 0 not started</summary>");
    // one row for the map, none per iteration or per step inside one
    assertThat(html).contains("<tr id=\"step-ship-items\" data-step=\"ship-items\"")
        .doesNotContain("data-step=\"ship-one[").doesNotContain("data-step=\"ship-items[")
        .doesNotContain("id=\"step-ship-one\"");
  }

  @Test
  void failedIterationsAreListedFirstWithTheirStepsAndTheListIsOpenWhenAnyFailed() {
    String html = page(MapInstances.shipping("RUNNING", "RUNNING", 20, MapInstances.iterations(5, 2, 3)));

    assertThat(listed(html)).containsExactly(7, 8, 9, 5, 6, 0, 1, 2, 3, 4);
    assertThat(html).contains("<details id=\"iterations-of-ship-items\" open>")
        .contains("<li id=\"iteration-ship-items%5B7%5D\" data-iteration=\"7\" data-status=\"FAILED\"><b>#7</b> "
            + "<span class=\"badge status-failed\">FAILED</span><ul><li><span class=\"mono\">ship-one[7]</span> "
            + "<span class=\"badge status-failed\">FAILED</span> <span class=\"status-failed\">NO_PARCELS: no parcels"
            + " left for item 7</span></li></ul></li>");

    String allWell = page(MapInstances.shipping("RUNNING", "RUNNING", 20, MapInstances.iterations(5, 2, 0)));
    assertThat(allWell).contains("<details id=\"iterations-of-ship-items\">");
  }

  @Test
  void aTenThousandItemMapListsItsFirstHundredIterationsAndSaysHowManyMore() {
    String html = page(MapInstances.shipping("RUNNING", "RUNNING", 10_000, MapInstances.iterations(9_000, 10, 0)));

    assertThat(listed(html)).hasSize(InstanceDetailView.ITERATIONS_LISTED);
    assertThat(html).contains("and 8,910 more iterations")
        .contains("10,000 items: 9,000 succeeded, 10 running, 0 failed, 990 not started");
    assertThat(html.length()).as("the page refreshed every 1.5 s stays small").isLessThan(60_000);
  }

  @Test
  void theLastErrorLinksToTheIterationItNamesWhichIsListedFirstEvenAmongManyFailures() {
    List<String> statuses = new ArrayList<>(Collections.nCopies(150, "FAILED"));
    // the failure past the tolerance is not always the lowest index's
    InstanceDocument doc = withLastError(MapInstances.shipping("FAILED", "FAILED", 300, statuses), "ship-one[120]");

    String html = page(doc);

    assertThat(html).contains("<dd id=\"last-error\" class=\"status-failed\">"
        + "<a href=\"instances/i-map#iteration-ship-items%5B120%5D\">ship-one[120]</a>: NO_PARCELS: none left</dd>");
    assertThat(listed(html).get(0)).isEqualTo(120);
    assertThat(listed(html)).hasSize(InstanceDetailView.ITERATIONS_LISTED);
  }

  @Test
  void aStepOutsideAnyMapKeepsItsPlainLastError() {
    InstanceDocument doc = withLastError(MapInstances.shipping("FAILED", "RUNNING", 1, List.of()), "reserve");
    assertThat(page(doc)).contains("<dd id=\"last-error\" class=\"status-failed\">reserve: NO_PARCELS");
  }

  /** The indexes of the iterations listed, in order. */
  private static List<Integer> listed(String html) {
    Matcher m = Pattern.compile("data-iteration=\"(\\d+)\"").matcher(html);
    List<Integer> indexes = new ArrayList<>();
    while (m.find()) {
      indexes.add(Integer.parseInt(m.group(1)));
    }
    return indexes;
  }

  /** The document with its last error at {@code step}. */
  private static InstanceDocument withLastError(InstanceDocument d, String step) {
    LastError e = new LastError(step, "task", "ship", 1, "FAILED", "NO_PARCELS", "none left", MapInstances.T);
    return new InstanceDocument(d.id(), d.namespace(), d.workflow(), d.revision(), d.businessKey(), d.traceId(),
        d.status(), d.phase(), d.currentStep(), d.attempt(), d.since(), d.deadline(), d.instanceDeadline(), e,
        d.createdAt(), d.updatedAt(), d.finishedAt(), d.createdBy(), d.input(), d.outputs(), d.steps(), d.audit());
  }
}
