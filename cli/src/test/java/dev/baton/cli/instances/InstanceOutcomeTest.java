package dev.baton.cli.instances;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.support.ExitCodes;
import dev.baton.httpapi.InstanceDocument;
import dev.baton.httpapi.LastError;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How {@code --wait} ends: the exit code of each outcome, the line it prints, and the deadline describe shows. */
class InstanceOutcomeTest {

  static final Instant CREATED = Instant.parse("2026-12-04T10:00:00Z");

  static InstanceDocument instance(String status, Instant finished, Instant instanceDeadline, LastError error) {
    return new InstanceDocument("i-1", "default", "orders", 1, "order-1", null, status, "FORWARD", "charge", 1,
        CREATED, null, instanceDeadline, error, CREATED, CREATED, finished, null, null, null, List.of(), null);
  }

  @Test
  void onlyASucceededInstanceExitsZeroAndEachOtherOutcomeHasItsOwnCode() {
    assertThat(ExitCodes.ofOutcome("SUCCEEDED")).isZero();
    assertThat(ExitCodes.ofOutcome("FAILED")).isEqualTo(4);
    assertThat(ExitCodes.ofOutcome("COMPENSATED")).isEqualTo(5);
    assertThat(ExitCodes.ofOutcome("CANCELLED")).isEqualTo(6);
    assertThat(ExitCodes.ofOutcome("RUNNING")).isEqualTo(7);
    assertThat(ExitCodes.ofOutcome("COMPENSATING")).isEqualTo(7);
  }

  @Test
  void theOutcomeLineSaysHowLongItTookAndWhyItDidNotSucceed() {
    LastError timeout = new LastError("charge", "task", "pay", 1, "TIMED_OUT", "InstanceTimeout",
        "Timeout: the instance ran past its deadline (spec.timeout 2s)", null);
    assertThat(Instances.outcome(instance("COMPENSATED", CREATED.plusSeconds(3), null, timeout), CREATED))
        .isEqualTo("instance i-1 (orders, business key order-1): COMPENSATED after 3.0s; last error: charge (pay,"
            + " attempt 1): TIMED_OUT InstanceTimeout: Timeout: the instance ran past its deadline (spec.timeout 2s)");
    assertThat(Instances.outcome(instance("RUNNING", null, null, null), CREATED))
        .isEqualTo("instance i-1 (orders, business key order-1): RUNNING at charge");
  }

  @Test
  void describeShowsTheInstancesDeadlineAndHowFarAwayItIs() {
    StringWriter out = new StringWriter();
    Instances.describe(new PrintWriter(out), instance("RUNNING", null, CREATED.plusSeconds(7200), null),
        CREATED.plusSeconds(600));
    assertThat(out.toString()).containsPattern("Deadline:\\s+\\S+ \\(in 1h50m, then it times out\\)");

    StringWriter none = new StringWriter();
    Instances.describe(new PrintWriter(none), instance("RUNNING", null, null, null), CREATED);
    assertThat(none.toString()).doesNotContain("Deadline:");
  }

  @Test
  void aStillRunningInstanceIsSaidOnStandardError() {
    StringWriter err = new StringWriter();
    int code = InstanceWait.exitCode(instance("RUNNING", null, null, null), java.time.Duration.ofSeconds(90), "get",
        new PrintWriter(err));
    assertThat(code).isEqualTo(ExitCodes.STILL_RUNNING);
    assertThat(err.toString()).contains("baton get: instance i-1 is still RUNNING after waiting 90s");
  }
}
