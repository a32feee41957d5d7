package dev.baton.cli.support;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain-text table like kubectl's: upper-case headers, columns padded and three spaces apart. */
public final class Table {

  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  public Table(String... headers) {
    this.headers = List.of(headers);
  }

  public Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException("a row of " + cells.length + " cells for " + headers.size() + " columns");
    }
    rows.add(Arrays.stream(cells).map(c -> c == null ? "" : c.toString()).toList());
    return this;
  }

  public boolean isEmpty() {
    return rows.isEmpty();
  }

  public void print(PrintWriter out) {
    new StreamedTable(headers.toArray(String[]::new)).print(out,
        rows.stream().map(row -> (Object[]) row.toArray()).toList());
  }
}
