package dev.baton.cli.support;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain-text table like kubectl's: upper-case headers, columns padded and three spaces apart. */
public final class Table {

  private static final String GAP = "   ";

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
    int[] widths = new int[headers.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = headers.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    line(out, headers, widths);
    rows.forEach(row -> line(out, row, widths));
    out.flush();
  }

  private static void line(PrintWriter out, List<String> cells, int[] widths) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      sb.append(cells.get(i));
      if (i < cells.size() - 1) {
        sb.append(" ".repeat(widths[i] - cells.get(i).length())).append(GAP);
      }
    }
    out.println(sb.toString().stripTrailing());
  }
}
