package dev.baton.cli.support;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Table} printed (Table prints through it, all rows at once) a few rows at a time, as {@code -w} prints each change: the headers once, before the first
 * rows, and every later row padded to the widths printed so far, so that the columns stay under their headers (a
 * wider cell widens its column from then on, as kubectl's watch does).
 */
public final class StreamedTable {

  private static final String GAP = "   ";

  private final List<String> headers;
  private final int[] widths;
  private boolean headersPrinted;

  public StreamedTable(String... headers) {
    this.headers = List.of(headers);
    this.widths = new int[headers.length];
  }

  /** Prints these rows (and the headers, the first time), then flushes. */
  public void print(PrintWriter out, List<Object[]> rows) {
    List<List<String>> cells = new ArrayList<>();
    for (Object[] row : rows) {
      if (row.length != headers.size()) {
        throw new IllegalArgumentException("a row of " + row.length + " cells for " + headers.size() + " columns");
      }
      List<String> texts = new ArrayList<>();
      for (Object cell : row) {
        texts.add(cell == null ? "" : cell.toString());
      }
      cells.add(texts);
    }
    if (!headersPrinted) {
      widen(headers);
    }
    cells.forEach(this::widen);
    if (!headersPrinted) {
      line(out, headers, widths);
      headersPrinted = true;
    }
    cells.forEach(row -> line(out, row, widths));
    out.flush();
  }

  /** One line of cells, each padded to its column's width but the last; columns three spaces apart. */
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

  private void widen(List<String> row) {
    for (int i = 0; i < widths.length; i++) {
      widths[i] = Math.max(widths[i], row.get(i).length());
    }
  }
}
