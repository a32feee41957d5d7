package dev.baton.cli.instances;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The columns of {@code get} and {@code search}: NAMESPACE with -A, more with -o wide; instance/<id> both ways. */
class InstanceRowsTest {

  @Test
  void allNamespacesPutsNamespaceFirstAndWideAddsItsColumnsLast() {
    assertThat(new InstanceRows(false, false).headers()).containsExactly("ID", "WORKFLOW", "BUSINESS KEY", "STATUS",
        "STEP", "ATTEMPT", "AGE");
    assertThat(new InstanceRows(true, true).headers()).containsExactly("NAMESPACE", "ID", "WORKFLOW",
        "BUSINESS KEY", "STATUS", "STEP", "ATTEMPT", "AGE", "REVISION", "STARTED", "ENDED", "CREATED BY",
        "LAST ERROR");
  }

  @Test
  void theLastErrorColumnIsTheStepItFailedAtAndItsCode() {
    var failed = InstanceWatchTest.instance("a", "FAILED", "charge", 2, InstanceWatchTest.T0.plusSeconds(5));
    Object[] cells = new InstanceRows(true, true).cells(failed, InstanceWatchTest.T0.plusSeconds(60));
    assertThat(List.of(cells)).startsWith("team-a", "a", "orders", "order-a", "FAILED", "charge", 2, "1m")
        .endsWith("alice", "charge: CARD_DECLINED");
  }

  @Test
  void aNameIsKindSlashIdAndIsReadBackAsTheId() {
    assertThat(InstanceRows.name("3f2b")).isEqualTo("instance/3f2b");
    assertThat(InstanceRows.id("instance/3f2b")).isEqualTo("3f2b");
    assertThat(InstanceRows.id("3f2b")).isEqualTo("3f2b");
    assertThat(InstanceRows.isName("order-fulfilment")).isFalse();
  }

  @Test
  void aWatchSeesNoChangeInAnInstanceThatOnlyAged() {
    var a = InstanceWatchTest.instance("a", "RUNNING", "charge", 1, null);
    assertThat(InstanceRows.state(a)).isEqualTo(InstanceRows.state(
        InstanceWatchTest.instance("a", "RUNNING", "charge", 1, null)));
    assertThat(InstanceRows.state(a)).isNotEqualTo(InstanceRows.state(
        InstanceWatchTest.instance("a", "RUNNING", "charge", 2, null)));
  }
}
