package dev.baton.cli.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code -w}'s table: headers once, later rows padded as the earlier ones, a wider cell widening its column. */
class StreamedTableTest {

  @Test
  void laterRowsKeepTheColumnsOfTheFirstAndAWiderCellWidensItsColumn() {
    StringWriter out = new StringWriter();
    StreamedTable t = new StreamedTable("ID", "STATUS", "AGE");
    t.print(new PrintWriter(out), List.<Object[]>of(new Object[] {"a", "RUNNING", "3s"}));
    t.print(new PrintWriter(out), List.<Object[]>of(new Object[] {"b", "OK", "1s"}));
    t.print(new PrintWriter(out), List.<Object[]>of(new Object[] {"c", "COMPENSATING", "2s"}));
    assertThat(out.toString().lines().toList()).containsExactly(
        "ID   STATUS    AGE",
        "a    RUNNING   3s",
        "b    OK        1s",
        "c    COMPENSATING   2s");
  }

  @Test
  void allRowsAtOnceAreTheTableThatTablePrints() {
    StringWriter streamed = new StringWriter();
    new StreamedTable("ID", "STATUS").print(new PrintWriter(streamed),
        List.<Object[]>of(new Object[] {"a", "RUNNING"}, new Object[] {"bb", null}));
    StringWriter table = new StringWriter();
    new Table("ID", "STATUS").row("a", "RUNNING").row("bb", null).print(new PrintWriter(table));
    assertThat(streamed.toString()).isEqualTo(table.toString());
  }
}
