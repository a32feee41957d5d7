package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.MissingNode;
import dev.baton.runtime.ui.InstanceView.Dispatch;
import dev.baton.runtime.ui.InstanceView.StepView;
import dev.baton.runtime.ui.StepPicture.Box;
import dev.baton.runtime.ui.StepPicture.Frame;
import dev.baton.runtime.ui.StepTree.Branch;
import dev.baton.runtime.ui.StepTree.Node;
import dev.baton.workflow.StepKind;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The picture's layout as numbers: order, side by side, no overlaps, the case taken. */
class StepPictureTest {

  static StepView ran(String name, String status) {
    return ran(name, StepKind.TASK, null, status);
  }

  static StepView ran(String name, StepKind kind, String parent, String status) {
    Dispatch d = new Dispatch("do-" + name, status, 1, Instant.parse("2026-01-05T10:00:00Z"),
        "RUNNING".equals(status) ? null : Instant.parse("2026-01-05T10:00:02Z"), MissingNode.getInstance(), null);
    return new StepView(name, kind, parent, d, List.of(d), null, null);
  }

  @Test
  void linearStepsStackTopToBottomInOneColumnJoinedByEdges() {
    StepTree tree = new StepTree(List.of(Node.box("reserve", StepKind.TASK), Node.box("charge", StepKind.TASK),
        Node.box("ship", StepKind.TASK)));
    StepPicture p = StepPicture.layout(tree, List.of(ran("reserve", "SUCCEEDED"), ran("charge", "RUNNING")));

    assertThat(p.boxes()).extracting(Box::name).containsExactly("reserve", "charge", "ship");
    assertThat(p.boxes()).extracting(Box::x).containsOnly(StepPicture.MARGIN);
    assertThat(p.boxes()).extracting(Box::y).containsExactly(12, 12 + 64 + 24, 12 + 2 * (64 + 24));
    assertThat(p.boxes()).extracting(Box::status).containsExactly("SUCCEEDED", "RUNNING", "PENDING");
    assertThat(p.edges()).hasSize(2);
    assertThat(p.edges().get(0).y1()).isEqualTo(12 + 64);
    assertThat(p.edges().get(0).y2()).isEqualTo(12 + 64 + 24);
    assertThat(p.width()).isEqualTo(StepPicture.BOX_W + 2 * StepPicture.MARGIN);
    assertThat(p.height()).isEqualTo(3 * 64 + 2 * 24 + 2 * StepPicture.MARGIN);
  }

  @Test
  void aFinishedInstancesStepsThatNeverRanAreNotReachedRatherThanPending() {
    StepTree tree = new StepTree(List.of(Node.box("reserve", StepKind.TASK), Node.box("ship", StepKind.TASK)));
    List<StepView> ran = List.of(ran("reserve", "FAILED"));
    assertThat(StepPicture.layout(tree, ran, Map.of(), true).box("ship").orElseThrow().status())
        .isEqualTo("NOT_REACHED");
    assertThat(StepPicture.layout(tree, ran, Map.of(), false).box("ship").orElseThrow().status())
        .isEqualTo("PENDING");
  }

  @Test
  void parallelBranchesSitSideBySideInsideTheirGroupWithoutOverlapping() {
    Node checks = new Node("checks", StepKind.PARALLEL, List.of(
        new Branch("", List.of(Node.box("fraud", StepKind.TASK))),
        new Branch("", List.of(Node.box("authorize", StepKind.TASK), Node.box("capture", StepKind.TASK)))));
    StepTree tree = new StepTree(List.of(Node.box("reserve", StepKind.TASK), checks, Node.box("ship", StepKind.TASK)));
    StepPicture p = StepPicture.layout(tree, List.of(ran("reserve", "SUCCEEDED"),
        ran("checks", StepKind.PARALLEL, null, "RUNNING"), ran("fraud", StepKind.TASK, "checks", "SUCCEEDED"),
        ran("authorize", StepKind.TASK, "checks", "RUNNING")));

    Box fraud = p.box("fraud").orElseThrow();
    Box authorize = p.box("authorize").orElseThrow();
    Box capture = p.box("capture").orElseThrow();
    assertThat(fraud.y()).isEqualTo(authorize.y());
    assertThat(fraud.x() + fraud.w()).isLessThanOrEqualTo(authorize.x() - StepPicture.GAP_X);
    assertThat(capture.x()).isEqualTo(authorize.x());
    assertThat(capture.y()).isGreaterThan(authorize.y() + authorize.h());
    Frame group = p.frame("checks").orElseThrow();
    assertThat(group.status()).isEqualTo("RUNNING");
    for (Box b : List.of(fraud, authorize, capture)) {
      assertThat(b.x()).isGreaterThan(group.x());
      assertThat(b.x() + b.w()).isLessThan(group.x() + group.w());
      assertThat(b.y()).isGreaterThan(group.y());
      assertThat(b.y() + b.h()).isLessThan(group.y() + group.h());
    }
    Box reserve = p.box("reserve").orElseThrow();
    Box ship = p.box("ship").orElseThrow();
    assertThat(reserve.y() + reserve.h()).isLessThan(group.y());
    assertThat(ship.y()).isGreaterThan(group.y() + group.h());
    assertThat(p.width()).isEqualTo(group.w() + 2 * StepPicture.MARGIN);
    assertThat(capture.status()).isEqualTo("PENDING");
    noTwoBoxesOverlap(p);
  }

  @Test
  void aChoiceMarksTheCaseTakenAndDimsTheOthersAsSkipped() {
    Node route = new Node("route", StepKind.CHOICE, List.of(
        new Branch("when: input.amount > 1000", List.of(Node.box("approval", StepKind.WAIT))),
        new Branch("otherwise", List.of(Node.box("auto", StepKind.TASK)))));
    StepPicture p = StepPicture.layout(new StepTree(List.of(route)), List.of(
        ran("route", StepKind.CHOICE, null, "SUCCEEDED"), ran("auto", StepKind.TASK, "route", "SUCCEEDED")));

    List<Frame> cases = p.frames().stream().filter(Frame::branch).toList();
    assertThat(cases).extracting(Frame::label).containsExactly("when: input.amount > 1000", "otherwise");
    assertThat(cases).extracting(Frame::taken).containsExactly(false, true);
    assertThat(cases).extracting(Frame::dimmed).containsExactly(true, false);
    assertThat(p.box("approval").orElseThrow().status()).isEqualTo("SKIPPED");
    assertThat(p.box("auto").orElseThrow().status()).isEqualTo("SUCCEEDED");
    noTwoBoxesOverlap(p);
  }

  @Test
  void theCaseTheRuntimeNamesIsTheOneMarkedEvenWhenItIsEmpty() {
    Node route = new Node("route", StepKind.CHOICE, List.of(
        new Branch("when a", List.of(Node.box("x", StepKind.TASK))), new Branch("when b", List.of()),
        new Branch(StepTree.OTHERWISE, List.of())));
    Dispatch d = ran("route", StepKind.CHOICE, null, "SUCCEEDED").latest();
    for (String chosen : new String[] {"1", "otherwise"}) {
      StepView choice = new StepView("route", StepKind.CHOICE, null, d, List.of(d), null, chosen);
      StepPicture p = StepPicture.layout(new StepTree(List.of(route)), List.of(choice));
      int expected = chosen.equals("1") ? 1 : 2;
      List<Frame> cases = p.frames().stream().filter(Frame::branch).toList();
      for (int i = 0; i < cases.size(); i++) {
        assertThat(cases.get(i).taken()).as(chosen + " case " + i).isEqualTo(i == expected);
      }
      assertThat(p.box("x").orElseThrow().status()).isEqualTo("SKIPPED");
    }
  }

  @Test
  void aChoiceThatHasNotDecidedMarksNoCase() {
    Node route = new Node("route", StepKind.CHOICE, List.of(new Branch("when: x", List.of(Node.box("a",
        StepKind.TASK))), new Branch("otherwise", List.of())));
    StepPicture p = StepPicture.layout(new StepTree(List.of(Node.box("first", StepKind.TASK), route)),
        List.of(ran("first", "RUNNING")));
    assertThat(p.frames().stream().filter(Frame::branch)).extracting(Frame::taken).containsOnly(false);
    assertThat(p.frames().stream().filter(Frame::branch)).extracting(Frame::dimmed).containsOnly(false);
    assertThat(p.box("a").orElseThrow().status()).isEqualTo("PENDING");
  }

  @Test
  void withoutTheSpecTheTreeComesFromTheStepsTheInstanceRan() {
    List<StepView> steps = List.of(ran("reserve", "SUCCEEDED"), ran("checks", StepKind.PARALLEL, null, "RUNNING"),
        ran("fraud", StepKind.TASK, "checks", "RUNNING"), ran("authorize", StepKind.TASK, "checks", "RUNNING"));
    StepTree tree = StepTree.of(steps);
    assertThat(tree.steps()).extracting(Node::name).containsExactly("reserve", "checks");
    assertThat(tree.steps().get(1).branches()).hasSize(2);
    StepPicture p = StepPicture.layout(tree, steps);
    assertThat(p.box("fraud").orElseThrow().y()).isEqualTo(p.box("authorize").orElseThrow().y());
  }

  @Test
  void theSvgSaysEveryStepsNameAndStatusInWords() {
    StepPicture p = StepPicture.layout(new StepTree(List.of(Node.box("reserve <stock>", StepKind.TASK))),
        List.of(ran("reserve <stock>", "FAILED")));
    String svg = StepPictureSvg.render(p, "", "t", Instant.parse("2026-01-05T10:00:05Z"));
    assertThat(svg).contains("reserve &lt;stock&gt;").contains(">FAILED · #1 · 2.0 s<")
        .contains("class=\"step status-failed\"").doesNotContain("<stock>");
  }

  @Test
  void aLongErrorIsCutInTheBoxButWholeInItsTooltipAndACancelIsNotShownAsAFailure() {
    InstanceView.Failure long_ = new InstanceView.Failure("ship", null, null, "NO_PARCELS",
        "no parcels left today at the depot", null);
    InstanceView.Failure cancelled = new InstanceView.Failure("pack", null, null, null, "Cancelled", null);
    StepPicture p = StepPicture.layout(new StepTree(List.of(Node.box("ship", StepKind.TASK),
        Node.box("pack", StepKind.TASK))), List.of(failed("ship", "FAILED", long_),
        failed("pack", "CANCELLED", cancelled)));
    String svg = StepPictureSvg.render(p, "", "t", Instant.parse("2026-01-05T10:00:05Z"));
    assertThat(svg).contains("<title>ship: FAILED (NO_PARCELS: no parcels left today at the depot)</title>")
        .contains("<text class=\"error\"").contains("NO_PARCELS: no parcels left …<")
        .containsPattern("<text class=\"detail-note\" x=\"\\d+\" y=\"\\d+\">Cancelled<")
        .doesNotContainPattern("<text class=\"error\"[^>]*>Cancelled<");
  }

  @Test
  void aMapIsOneGroupWithItsBodyInsideWhateverItsNumberOfItems() {
    InstanceView v = InstanceViewAdapter.from(MapInstances.shipping("RUNNING", "RUNNING", 1000,
        MapInstances.iterations(940, 50, 10)));
    StepPicture p = StepPicture.layout(StepTree.of(MapInstances.SPEC), v.steps(), v.maps(), false);

    // the iterations' rows (ship-items[3], ship-one[3]) are neither boxes nor the template step's status
    assertThat(p.boxes()).extracting(Box::name).containsExactly("reserve", "ship-one");
    Frame map = p.frame("ship-items").orElseThrow();
    assertThat(map.kind()).isEqualTo(StepKind.MAP);
    assertThat(map.status()).isEqualTo("RUNNING");
    assertThat(map.iterations().summary())
        .isEqualTo("1,000 items: 940 succeeded, 50 running, 10 failed, 0 not started");
    assertThat(map.w()).isGreaterThanOrEqualTo(StepPicture.MAP_W);
    assertThat(p.frames().stream().filter(Frame::branch)).extracting(Frame::label)
        .containsExactly("each of input.items");
    Box shipOne = p.box("ship-one").orElseThrow();
    assertThat(shipOne.step()).isNull();
    assertThat(shipOne.body().counts()).containsExactly(Map.entry("FAILED", 10), Map.entry("RUNNING", 50),
        Map.entry("SUCCEEDED", 940));
    assertThat(shipOne.status()).as("a failure in any iteration shows").isEqualTo("FAILED");
    assertThat(shipOne.body().failed().name()).isEqualTo("ship-one[990]");
    assertThat(shipOne.y()).isGreaterThan(map.y() + StepPicture.HEADER_H + StepPicture.TALLY_H);
    noTwoBoxesOverlap(p);
  }

  @Test
  void aMapNotStartedYetIsPendingWithItsBodyAndNoCounts() {
    InstanceView v = InstanceViewAdapter.from(MapInstances.shipping("RUNNING", "RUNNING", 3, List.of()));
    StepPicture p = StepPicture.layout(StepTree.of(MapInstances.SPEC),
        v.steps().stream().filter(s -> s.name().equals("reserve")).toList(), Map.of(), false);

    assertThat(p.frame("ship-items").orElseThrow().status()).isEqualTo("PENDING");
    assertThat(p.frame("ship-items").orElseThrow().iterations()).isNull();
    assertThat(p.box("ship-one").orElseThrow().status()).isEqualTo("PENDING");
    assertThat(p.box("ship-one").orElseThrow().body().counts()).isEmpty();
    assertThat(StepPictureSvg.render(p, "", "t", MapInstances.T)).contains(">no iteration started<");
  }

  @Test
  void theSvgCountsAMapsIterationsUnderItsNameAndLinksThemToTheirList() {
    InstanceView v = InstanceViewAdapter.from(MapInstances.shipping("FAILED", "FAILED", 1000,
        MapInstances.iterations(940, 0, 10)));
    StepPicture p = StepPicture.layout(StepTree.of(MapInstances.SPEC), v.steps(), v.maps(), true);
    String svg = StepPictureSvg.render(p, "", "t", MapInstances.T);

    assertThat(svg).contains("<g class=\"group map status-failed\">")
        .contains("<a href=\"#iterations-ship-items\">")
        .contains(">map ship-items · FAILED<")
        .contains(">1,000 items: 940 succeeded, 0 running,<").contains(">10 failed, 50 not started<")
        .contains("<title>ship-one: 10 failed, 940 succeeded (ship-one[940]: NO_PARCELS: no parcels left for item"
            + " 940)</title>")
        .contains(">10 failed, 940 succeeded<")
        .doesNotContain("data-step=\"ship-one[");
  }

  @Test
  void aChildWorkflowStepIsASingleStepThatNamesTheWorkflowItStarts() {
    StepTree tree = StepTree.of(ChildInstances.SPEC);

    Node invoice = tree.steps().get(1);
    assertThat(invoice.kind()).isEqualTo(StepKind.WORKFLOW);
    assertThat(invoice.workflow()).isEqualTo("invoicing");
    assertThat(invoice.branches()).isEmpty();
    assertThat(tree.places()).containsExactly("reserve", "invoice", "ship");
    assertThat(tree.groups()).isEmpty();
    assertThat(StepTree.of(ChildInstances.MAP_SPEC).steps().get(0).branches().get(0).steps())
        .containsExactly(Node.child("invoice", "invoicing"));
  }

  @Test
  void aChildWorkflowStepsBoxIsALineTallerThanATasksForItsChild() {
    InstanceView v = InstanceViewAdapter.from(ChildInstances.order("RUNNING", "RUNNING", "RUNNING"));
    StepPicture p = StepPicture.layout(StepTree.of(ChildInstances.SPEC), v.steps(), v.maps(), false);

    Box invoice = p.box("invoice").orElseThrow();
    assertThat(invoice.kind()).isEqualTo(StepKind.WORKFLOW);
    assertThat(invoice.workflow()).isEqualTo("invoicing");
    assertThat(invoice.status()).isEqualTo("RUNNING");
    assertThat(invoice.step().child().id()).isEqualTo("c-1");
    assertThat(invoice.h()).isEqualTo(StepPicture.CHILD_BOX_H);
    assertThat(p.box("ship").orElseThrow().y()).isEqualTo(invoice.y() + StepPicture.CHILD_BOX_H + StepPicture.GAP_Y);
    assertThat(p.height()).isEqualTo(2 * StepPicture.BOX_H + StepPicture.CHILD_BOX_H + 2 * StepPicture.GAP_Y
        + 2 * StepPicture.MARGIN);
    noTwoBoxesOverlap(p);
  }

  @Test
  void theSvgLinksAChildWorkflowStepsBoxToItsChildInstanceOutsideTheBoxsOwnLink() {
    InstanceView v = InstanceViewAdapter.from(ChildInstances.order("SUCCEEDED", "SUCCEEDED", "SUCCEEDED"));
    StepPicture p = StepPicture.layout(StepTree.of(ChildInstances.SPEC), v.steps(), v.maps(), true);
    String svg = StepPictureSvg.render(p, "", "t", ChildInstances.T.plusSeconds(90));

    String box = svg.substring(svg.indexOf("<a href=\"#step-invoice\">"), svg.indexOf("<a href=\"#step-ship\">"));
    assertThat(box).containsPattern(">invoice</text>").doesNotContain(">workflow invoice<")
        .contains("</g></a><a href=\"instances/c-1\" data-child=\"c-1\"><title>child instance c-1 (invoicing,"
            + " SUCCEEDED): open its page</title><text class=\"child status-succeeded\"")
        .contains(">↳ invoicing · SUCCEEDED</text></a>");
    assertThat(box.indexOf("data-child")).as("links do not nest: the child's comes after the box's closes")
        .isGreaterThan(box.indexOf("</a>"));
  }

  @Test
  void aChildThatFailedItsStepIsRedInTheBoxAndTheStepsErrorIsThere() {
    InstanceView v = InstanceViewAdapter.from(ChildInstances.order("FAILED", "FAILED", "COMPENSATED"));
    StepPicture p = StepPicture.layout(StepTree.of(ChildInstances.SPEC), v.steps(), v.maps(), true);
    String svg = StepPictureSvg.render(p, "", "t", ChildInstances.T.plusSeconds(90));

    assertThat(svg).contains("<g class=\"step status-failed\" data-step=\"invoice\">")
        .contains("<title>invoice: FAILED (ChildFailed: child instance c-1 ended COMPENSATED: tax service is down)"
            + "</title>")
        .containsPattern("<text class=\"error\"[^>]*>ChildFailed: tax service is …<")
        .containsPattern("<text class=\"child status-failed\"[^>]*>↳ invoicing · COMPENSATED<");
  }

  @Test
  void aChildWorkflowStepNotStartedOrInAMapsBodyNamesItsWorkflowWithoutALink() {
    StepPicture pending = StepPicture.layout(StepTree.of(ChildInstances.SPEC), List.of(ran("reserve", "RUNNING")));
    assertThat(StepPictureSvg.render(pending, "", "t", ChildInstances.T))
        .containsPattern("<text class=\"detail-note\"[^>]*>↳ invoicing<").doesNotContain("data-child=");

    InstanceView v = InstanceViewAdapter.from(ChildInstances.perItem(List.of("SUCCEEDED", "FAILED")));
    StepPicture map = StepPicture.layout(StepTree.of(ChildInstances.MAP_SPEC), v.steps(), v.maps(), false);
    Box body = map.box("invoice").orElseThrow();
    assertThat(body.body().counts()).containsExactly(Map.entry("FAILED", 1), Map.entry("SUCCEEDED", 1));
    assertThat(StepPictureSvg.render(map, "", "t", ChildInstances.T))
        .contains("<a href=\"#iterations-invoice-items\"><g class=\"step status-failed\" data-step=\"invoice\">")
        .containsPattern("<text class=\"detail-note\"[^>]*>↳ invoicing<").doesNotContain("data-child=");
  }

  @Test
  void withoutTheSpecAChildWorkflowStepNamesTheWorkflowOfTheChildItStarted() {
    InstanceView v = InstanceViewAdapter.from(ChildInstances.order("RUNNING", "RUNNING", "RUNNING"));

    StepTree tree = StepTree.of(v.steps());

    assertThat(tree.steps()).containsExactly(Node.box("reserve", StepKind.TASK), Node.child("invoice", "invoicing"));
  }

  @Test
  void textBreaksAfterACommaOrAColonAndItsLastLineIsCut() {
    assertThat(StepPictureSvg.lines("10,000 items: 9,400 succeeded, 500 running, 100 failed, 0 not started", 40, 2))
        .containsExactly("10,000 items: 9,400 succeeded,", "500 running, 100 failed, 0 not started");
    assertThat(StepPictureSvg.lines("a: b, c, d", 5, 2)).containsExactly("a: b,", "c, d");
    assertThat(StepPictureSvg.lines("aaaa, bbbb, cccc", 6, 2)).containsExactly("aaaa,", "bbbb,…");
  }

  private static StepView failed(String name, String status, InstanceView.Failure error) {
    Dispatch d = new Dispatch("do-" + name, status, 1, Instant.parse("2026-01-05T10:00:00Z"),
        Instant.parse("2026-01-05T10:00:02Z"), MissingNode.getInstance(), error);
    return new StepView(name, StepKind.TASK, null, d, List.of(d), null, null);
  }

  private static void noTwoBoxesOverlap(StepPicture p) {
    for (Box a : p.boxes()) {
      for (Box b : p.boxes()) {
        if (a != b) {
          boolean apart = a.x() + a.w() <= b.x() || b.x() + b.w() <= a.x() || a.y() + a.h() <= b.y()
              || b.y() + b.h() <= a.y();
          assertThat(apart).as(a.name() + " and " + b.name() + " overlap").isTrue();
        }
      }
    }
  }
}
