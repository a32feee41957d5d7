package dev.baton.reliability.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/** The suite's table: printed, and written to {@code .baton/reliability/report.md} of the repository. */
public final class Report {

  private static final List<Verdict> VERDICTS = new ArrayList<>();
  /** More tables of the same run (the history checker's), by title, in the order they came. */
  private static final java.util.Map<String, String> SECTIONS = new java.util.LinkedHashMap<>();

  private Report() {}

  public static synchronized void add(Verdict v) {
    VERDICTS.removeIf(old -> old.scenario().equals(v.scenario()));
    VERDICTS.add(v);
    System.out.println("VERDICT " + v.row() + (v.notes().isEmpty() ? "" : "  notes: " + v.notes()));
  }

  /** A table of its own in the report (replacing an earlier one of the same title). */
  public static synchronized void section(String title, String markdown) {
    SECTIONS.put(title, markdown);
  }

  public static synchronized String table(String mode) {
    StringBuilder sb = new StringBuilder();
    sb.append("Fault-injection suite, ").append(mode).append(" run, ")
        .append(ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)).append(" (")
        .append(Runtime.getRuntime().availableProcessors()).append(" CPUs)\n\n");
    if (!VERDICTS.isEmpty()) {
      faultTable(sb);
    }
    SECTIONS.forEach((title, markdown) -> sb.append("## ").append(title).append("\n\n").append(markdown)
        .append('\n'));
    return sb.toString();
  }

  private static void faultTable(StringBuilder sb) {
    sb.append("| scenario | instances | faults | lost | applied twice | stuck | parked | leftovers | recover (s) "
        + "| drain (s) | verdict |\n");
    sb.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (Verdict v : VERDICTS) {
      sb.append(v.row()).append('\n');
    }
    sb.append('\n');
    for (Verdict v : VERDICTS) {
      if (!v.notes().isEmpty()) {
        sb.append("- ").append(v.scenario()).append(": ").append(v.notes()).append('\n');
      }
    }
    sb.append('\n');
  }

  /** Prints the table and writes it to {@code <repo>/.baton/reliability/report.md}; returns the file. */
  public static synchronized Path write(String mode) {
    String table = table(mode);
    System.out.println(table);
    Path root = Path.of(System.getProperty("baton.repo.root", "."));
    Path file = root.resolve(".baton").resolve("reliability").resolve("report.md");
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, table);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return file;
  }

  public static synchronized List<Verdict> verdicts() {
    return List.copyOf(VERDICTS);
  }
}
