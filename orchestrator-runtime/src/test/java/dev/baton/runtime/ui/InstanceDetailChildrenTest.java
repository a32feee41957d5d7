package dev.baton.runtime.ui;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.WorkflowSpec;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceLink;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The instance page of a parent and of a child: each links to the other, a failed child in red next to its step. */
class InstanceDetailChildrenTest {

  static String page(InstanceDocument doc, WorkflowSpec spec) {
    InstanceView v = InstanceViewAdapter.from(doc);
    StepPicture picture = StepPicture.layout(StepTree.of(spec), v.steps(), v.maps(), !v.active());
    return InstanceDetailView.live(v, picture, new InstanceDetailView.Abilities(true, true),
        InstanceDetailViewTest.VIEWER, ChildInstances.T.plusSeconds(90), TraceLink.NONE);
  }

  /** The row of a step in the steps table, from its opening tag to its end. */
  static String row(String html, String step) {
    int start = html.indexOf("<tr id=\"step-" + step + "\"");
    assertThat(start).as("the row of " + step).isNotNegative();
    return html.substring(start, html.indexOf("</tr>", start));
  }

  @Test
  void aChildInstanceNamesItsParentNearTheTopWithALinkToItsPage() {
    String html = page(ChildInstances.invoicing(new InstanceLink("invoice", "p-1", "orders", "RUNNING")),
        ChildInstances.SPEC);

    assertThat(html).contains("<dt>Parent</dt><dd id=\"parent\"><a id=\"parent-link\" href=\"instances/p-1\">"
        + "orders</a>, step <span class=\"mono\">invoice</span> <span class=\"badge status-running\">RUNNING</span>"
        + " <span class=\"muted mono\">p-1</span></dd>");
    assertThat(html.indexOf("id=\"parent\"")).as("in the facts, above the picture and the steps")
        .isLessThan(html.indexOf("<h2>Steps</h2>")).isLessThan(html.indexOf("<dt>Workflow</dt>"));
  }

  @Test
  void aParentThePurgeHasTakenIsNamedByItsIdWithoutALink() {
    String html = page(ChildInstances.invoicing(new InstanceLink("invoice", "p-1", null, null)), ChildInstances.SPEC);

    assertThat(html).contains("<dd id=\"parent\"><span class=\"mono\">p-1</span>, step <span class=\"mono\">invoice"
        + "</span> <span class=\"muted\">(no longer kept)</span></dd>").doesNotContain("id=\"parent-link\"");
  }

  @Test
  void anInstanceWithoutLinksHasNoParentLineAndNoChild() {
    String html = page(MapInstances.shipping("RUNNING", "RUNNING", 2, List.of("SUCCEEDED")), MapInstances.SPEC);

    assertThat(html).doesNotContain("<dt>Parent</dt>").doesNotContain("class=\"child\"")
        .doesNotContain("data-child=");
  }

  @Test
  void aChildWorkflowStepsRowLinksToItsChildInstanceWithItsStatus() {
    String html = page(ChildInstances.order("RUNNING", "RUNNING", "RUNNING"), ChildInstances.SPEC);

    assertThat(row(html, "invoice")).contains("<b>invoice</b> <span class=\"muted\">workflow</span><br>"
        + "<span class=\"child\" id=\"child-invoice\">↳ <a href=\"instances/c-1\" data-child=\"c-1\""
        + " title=\"child instance c-1\">invoicing</a> <span class=\"badge status-running\">RUNNING</span></span>");
    assertThat(row(html, "reserve")).doesNotContain("class=\"child\"");
  }

  @Test
  void aChildThatFailedItsStepHasARedBadgeWhateverItEndedAsAndTheStepSaysWhy() {
    String html = page(ChildInstances.order("FAILED", "FAILED", "COMPENSATED"), ChildInstances.SPEC);

    String invoice = row(html, "invoice");
    // it undid its own work (COMPENSATED, green elsewhere), but it is why the step failed
    assertThat(invoice).contains(">invoicing</a> <span class=\"badge status-failed\">COMPENSATED</span></span>")
        .contains("<td data-label=\"Error\" class=\"status-failed\">ChildFailed: child instance c-1 ended COMPENSATED:"
            + " tax service is down</td>");
    assertThat(html).contains("<dd id=\"last-error\" class=\"status-failed\">invoice: ChildFailed: child instance c-1"
        + " ended COMPENSATED: tax service is down</dd>");
  }

  @Test
  void aChildThatSucceededKeepsItsGreenBadgeEvenWhenTheParentFailedLater() {
    String html = page(ChildInstances.order("FAILED", "SUCCEEDED", "SUCCEEDED"), ChildInstances.SPEC);

    assertThat(row(html, "invoice")).contains(">invoicing</a> <span class=\"badge status-succeeded\">SUCCEEDED</span>");
  }

  @Test
  void aChildWorkflowStepNotStartedYetSaysWhichWorkflowItWillStart() {
    InstanceDocument doc = ChildInstances.order("RUNNING", "RUNNING", "RUNNING");
    InstanceDocument justReserved = new InstanceDocument(doc.id(), doc.namespace(), doc.workflow(), doc.revision(),
        doc.businessKey(), doc.traceId(), doc.status(), doc.phase(), "reserve", 1, doc.since(), null, null, null,
        doc.createdAt(), doc.updatedAt(), null, doc.createdBy(), doc.input(), doc.outputs(),
        doc.steps().subList(0, 1), doc.audit());

    String invoice = row(page(justReserved, ChildInstances.SPEC), "invoice");

    assertThat(invoice).contains("<b>invoice</b><br><span class=\"muted\">↳ invoicing</span>")
        .contains("not dispatched").doesNotContain("data-child=");
  }

  @Test
  void eachIterationsChildIsLinkedInTheIterationsListAFailedOneInRed() {
    String html = page(ChildInstances.perItem(List.of("SUCCEEDED", "RUNNING", "FAILED", "CANCELLED")),
        ChildInstances.MAP_SPEC);

    assertThat(html).contains("<li id=\"iteration-invoice-items%5B1%5D\" data-iteration=\"1\" data-status=\"RUNNING\">"
        + "<b>#1</b> <span class=\"badge status-running\">RUNNING</span><ul><li><span class=\"mono\">invoice[1]</span>"
        + " <span class=\"badge status-running\">RUNNING</span> <span class=\"child\" id=\"child-invoice%5B1%5D\">↳"
        + " <a href=\"instances/c-1\" data-child=\"c-1\" title=\"child instance c-1\">invoicing</a>"
        + " <span class=\"badge status-running\">RUNNING</span></span></li></ul></li>");
    assertThat(html).contains("<span class=\"mono\">invoice[2]</span> <span class=\"badge status-failed\">FAILED</span>"
        + " <span class=\"status-failed\">ChildFailed: child instance c-2 ended FAILED</span> <span class=\"child\""
        + " id=\"child-invoice%5B2%5D\">↳ <a href=\"instances/c-2\"");
    assertThat(html).contains("<a href=\"instances/c-3\" data-child=\"c-3\" title=\"child instance c-3\">invoicing"
        + "</a> <span class=\"badge status-failed\">CANCELLED</span>");
    for (int i = 0; i < 4; i++) {
      assertThat(html).as("child c-" + i).contains("href=\"instances/c-" + i + "\"");
    }
    // the map's body in the picture names the Workflow but links no child: the list does, one per iteration
    assertThat(html).doesNotContain("<tr id=\"step-invoice\"");
  }

  @Test
  void aChildsIdIsEscapedInItsLink() {
    InstanceDocument doc = ChildInstances.order("RUNNING", "RUNNING", "RUNNING").withLinks(null,
        List.of(new InstanceLink("invoice", "c 1/\"x\"", "invoicing", "RUNNING")));

    assertThat(page(doc, ChildInstances.SPEC)).contains("href=\"instances/c%201%2F%22x%22\"")
        .doesNotContain("c 1/\"x\"");
  }
}
