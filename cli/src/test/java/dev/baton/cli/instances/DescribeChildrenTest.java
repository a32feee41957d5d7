package dev.baton.cli.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.InstanceLink;
import dev.baton.httpapi.LastError;
import dev.baton.httpapi.StepDocument;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code baton describe} of a parent and of a child instance: each names the other. */
class DescribeChildrenTest {

  static final Instant T = DescribeMapTest.T;

  /** The order {@code p-1}, whose child workflow step {@code invoice} started {@code children}. */
  static InstanceDocument order(String status, LastError lastError, List<InstanceLink> children) {
    List<StepDocument> steps = List.of(
        new StepDocument("reserve", "task", null, "reserve", "SUCCEEDED", 1, T, T.plusSeconds(1), null, null, null,
            null, "m-0", null),
        new StepDocument("invoice", "workflow", null, null, "FAILED".equals(status) ? "FAILED" : "RUNNING", 1,
            T.plusSeconds(1), "FAILED".equals(status) ? T.plusSeconds(30) : null, null, lastError == null ? null
                : new StepDocument.StepError(lastError.errorCode(), lastError.reason()), null, null, null, null));
    return new InstanceDocument("p-1", "shop", "orders", 1, "order-7", null, status, "FORWARD", "invoice", 1,
        T.plusSeconds(1), null, null, lastError, T, T, null, "alice", null, null, steps, null)
        .withLinks(null, children);
  }

  /** The child {@code c-1} of {@code p-1}'s step {@code invoice}; {@code parent}: its link. */
  static InstanceDocument invoicing(InstanceLink parent) {
    List<StepDocument> steps = List.of(new StepDocument("issue", "task", null, "issue", "RUNNING", 1,
        T.plusSeconds(2), null, null, null, null, null, "m-1", null));
    return new InstanceDocument("c-1", "shop", "invoicing", 2, "p-1/invoice", null, "RUNNING", "FORWARD", "issue", 1,
        T.plusSeconds(2), null, null, null, T.plusSeconds(1), T, null, "baton:instance:p-1", null, null, steps, null)
        .withLinks(parent, null);
  }

  /** The lines of the children's table, without its header. */
  static List<String> childLines(String text) {
    List<String> lines = new ArrayList<>();
    boolean inTable = false;
    for (String line : text.split("\n")) {
      if (line.startsWith("STEP ") && line.contains("WORKFLOW")) {
        inTable = true;
      } else if (inTable && !line.isBlank() && !line.startsWith("...")) {
        lines.add(line);
      } else {
        inTable = false;
      }
    }
    return lines;
  }

  @Test
  void aChildNamesItsParentWithItsWorkflowStepAndStatus() {
    String text = DescribeMapTest.describe(invoicing(new InstanceLink("invoice", "p-1", "orders", "RUNNING")));

    assertThat(text).contains("Business key: p-1/invoice\nParent:       p-1 (orders, step invoice, RUNNING)\n")
        .contains("by baton:instance:p-1").doesNotContain("Children");
  }

  @Test
  void aParentThePurgeHasTakenIsNamedByItsIdAndStep() {
    String text = DescribeMapTest.describe(invoicing(new InstanceLink("invoice", "p-1", null, null)));

    assertThat(text).contains("Parent:       p-1 (step invoice; no longer kept)");
  }

  @Test
  void aParentListsItsChildrenUnderItsTimelineAndTheStepSaysWhyItFailed() {
    LastError failed = new LastError("invoice", "workflow", null, 1, "FAILED", "ChildFailed",
        "child instance c-1 ended COMPENSATED: tax service is down", T.plusSeconds(30));
    String text = DescribeMapTest.describe(order("FAILED", failed,
        List.of(new InstanceLink("invoice", "c-1", "invoicing", "COMPENSATED"))));

    assertThat(text).contains("Children (the instances its child workflow steps started; baton describe <id> shows"
        + " one):").containsPattern("\\nSTEP\\s+ID\\s+WORKFLOW\\s+STATUS\\n");
    assertThat(childLines(text)).singleElement().satisfies(line -> assertThat(line.split("\\s+"))
        .containsExactly("invoice", "c-1", "invoicing", "COMPENSATED"));
    assertThat(text).contains("Last error:   invoice (workflow, attempt 1): FAILED ChildFailed: child instance c-1"
        + " ended COMPENSATED: tax service is down")
        .containsPattern("\\n2\\s+invoice\\s+workflow\\s+1\\s+FAILED\\s+10:00:01\\s+29s\\s+ChildFailed: child"
            + " instance c-1 ended COMPENSATED: tax service is down")
        .doesNotContain("Parent:");
    assertThat(text.indexOf("Children")).as("after the timeline").isGreaterThan(text.indexOf("Timeline"));
  }

  @Test
  void aMapsThousandChildrenAreAScreenfulFailedOnesFirst() {
    List<InstanceLink> children = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      children.add(new InstanceLink("invoice[" + i + "]", "c-" + i, "invoicing",
          i % 250 == 7 ? "FAILED" : i % 100 == 3 ? "RUNNING" : "SUCCEEDED"));
    }

    String text = DescribeMapTest.describe(order("RUNNING", null, children));

    List<String> listed = childLines(text).stream().map(l -> l.split("\\s+")[0]).toList();
    assertThat(listed).hasSize(Instances.CHILDREN_LISTED)
        .startsWith("invoice[7]", "invoice[257]", "invoice[507]", "invoice[757]", "invoice[3]");
    assertThat(text).contains("... 980 more child instances (-o json shows every one)");
    assertThat(text.lines().count()).as("a screenful, not a line per child").isLessThan(50);
  }

  @Test
  void anInstanceWithoutLinksHasNeitherParentNorChildren() {
    String text = DescribeMapTest.describe(order("RUNNING", null, List.of()));

    assertThat(text).doesNotContain("Parent:").doesNotContain("Children");
  }
}
