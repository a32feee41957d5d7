package dev.baton.runtime.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.store.Actor;
import org.junit.jupiter.api.Test;

/** The audit's log line: key=value pairs, one line whatever a client sent. */
class AuditLogTest {

  static final Actor CI = new Actor("system:serviceaccount:team-a:ci", "10.0.0.7");

  @Test
  void aLineSaysWhatWasAskedByWhomWhereAndHowItEnded() {
    String line = AuditLog.format(new AuditLog.Line("cancel", AuditLog.Outcome.DONE, CI, "team-a", "orders",
        "0190f0c2-7a1b-7c3d-8e4f-000000000042", "compensate"));

    assertThat(line).isEqualTo("action=cancel outcome=done user=system:serviceaccount:team-a:ci namespace=team-a"
        + " workflow=orders instance=0190f0c2-7a1b-7c3d-8e4f-000000000042 source=10.0.0.7 detail=compensate");
  }

  @Test
  void whatIsNotKnownIsADash() {
    assertThat(AuditLog.format(new AuditLog.Line("signal", AuditLog.Outcome.NOT_FOUND, new Actor("anonymous", null),
        null, null, "x", null))).isEqualTo("action=signal outcome=not-found user=anonymous namespace=- workflow=-"
        + " instance=x source=- detail=-");
  }

  @Test
  void aValueAClientChoseCannotForgeAnotherPairOrLine() {
    String line = AuditLog.format(new AuditLog.Line("signal", AuditLog.Outcome.DONE, CI, "team-a", "orders", "x",
        "approved outcome=forbidden\nuser=admin \"quoted\""));

    assertThat(line).doesNotContain("\n").endsWith("detail=\"approved outcome=forbidden\\nuser=admin \\\"quoted\\\"\"");
    assertThat(AuditLog.value("")).isEqualTo("\"\"");
    assertThat(AuditLog.value("a=b")).isEqualTo("\"a=b\"");
  }
}
