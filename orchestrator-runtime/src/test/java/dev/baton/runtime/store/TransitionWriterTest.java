package dev.baton.runtime.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.runtime.store.TransitionWriter.Part;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

/** The transition statement holds the kinds of write a batch has, and nothing else. */
class TransitionWriterTest {

  @Test
  void aStepThatDispatchesTheNextWritesStepsCommandsAndTheInstanceButNoSignalsNorWithdrawals() {
    String sql = TransitionWriter.statement(EnumSet.of(Part.UPDATED, Part.INSERTED, Part.QUEUED, Part.MOVED));

    assertThat(sql).startsWith("WITH u AS").contains("UPDATE instance_step", "INSERT INTO instance_step",
        "INSERT INTO outbox", "UPDATE workflow_instance");
    assertThat(sql).doesNotContain("instance_signal", "DELETE FROM outbox");
    assertThat(sql).endsWith("SELECT (SELECT count(*) FROM updated), (SELECT count(*) FROM inserted),"
        + " (SELECT count(*) FROM queued), (SELECT count(*) FROM moved),"
        + " (SELECT array_agg(id ORDER BY id) FROM queued)");
    assertThat(parameters(sql)).isEqualTo(9 + 1 + 16 + 7 + 8 + 1);
  }

  @Test
  void aLastStepEndsItsRowWithdrawsWhatIsLeftAndMovesTheInstance() {
    String sql = TransitionWriter.statement(EnumSet.of(Part.UPDATED, Part.WITHDRAWN, Part.MOVED));

    assertThat(sql).contains("DELETE FROM outbox WHERE instance_id").doesNotContain("INSERT");
    assertThat(sql).endsWith("SELECT (SELECT count(*) FROM updated), (SELECT count(*) FROM withdrawn),"
        + " (SELECT count(*) FROM moved)");
  }

  @Test
  void whileSomeCommandHasALimitTheStepsThatEndGiveTheirCommandsSlotsBackInTheSameStatement() {
    String sql = TransitionWriter.statement(EnumSet.of(Part.UPDATED, Part.MOVED, Part.FREED));

    assertThat(sql).contains("DELETE FROM command_slot WHERE message_id = ANY (ARRAY(SELECT x.command_message_id");
    assertThat(TransitionWriter.statement(EnumSet.of(Part.UPDATED, Part.MOVED))).doesNotContain("command_slot");
  }

  @Test
  void eachSetOfPartsIsBuiltOnce() {
    EnumSet<Part> parts = EnumSet.of(Part.INSERTED, Part.QUEUED, Part.MOVED);

    assertThat(TransitionWriter.statement(parts)).isSameAs(TransitionWriter.statement(EnumSet.copyOf(parts)));
  }

  private static long parameters(String sql) {
    return sql.chars().filter(ch -> ch == '?').count();
  }
}
