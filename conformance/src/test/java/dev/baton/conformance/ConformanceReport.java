package dev.baton.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The table of implementations × cases that {@code target/conformance-report.md} holds after a run. */
final class ConformanceReport {

  /** The outcome of one case for one implementation. */
  record Outcome(String verdict, String detail) {
    static Outcome pass() {
      return new Outcome("pass", null);
    }

    static Outcome fail(Throwable t) {
      String message = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
      return failed(message.strip().lines().findFirst().orElse(""));
    }

    static Outcome failed(String why) {
      return new Outcome("**FAIL**", why);
    }

    String cell() {
      return detail == null ? verdict : verdict + ": " + detail.replace("|", "\\|");
    }
  }

  private final Map<Implementation, Map<Case, Outcome>> outcomes = new LinkedHashMap<>();
  private final Map<Implementation, String> notes = new LinkedHashMap<>();

  synchronized void record(Implementation implementation, Case c, Outcome outcome) {
    outcomes.computeIfAbsent(implementation, i -> new EnumMap<>(Case.class)).put(c, outcome);
  }

  /** A line under the table about an implementation (how its worker stopped). */
  synchronized void note(Implementation implementation, String note) {
    notes.put(implementation, note);
  }

  synchronized String markdown() {
    List<String> lines = new ArrayList<>();
    lines.add("# Worker conformance report");
    lines.add("");
    lines.add("The cases of conformance/README.md, run by `WorkerConformanceIT`.");
    lines.add("");
    StringBuilder header = new StringBuilder("| case |");
    StringBuilder rule = new StringBuilder("|---|");
    for (Implementation i : outcomes.keySet()) {
      header.append(' ').append(i.id()).append(" |");
      rule.append("---|");
    }
    lines.add(header.toString());
    lines.add(rule.toString());
    for (Case c : Case.values()) {
      StringBuilder row = new StringBuilder("| " + c.title() + " |");
      for (Map<Case, Outcome> byCase : outcomes.values()) {
        Outcome o = byCase.get(c);
        row.append(' ').append(o == null ? "not run" : o.cell()).append(" |");
      }
      lines.add(row.toString());
    }
    if (!notes.isEmpty()) {
      lines.add("");
      notes.forEach((i, n) -> lines.add("- " + i.id() + ": " + n));
    }
    return String.join("\n", lines) + "\n";
  }

  void write(Path file) {
    try {
      Files.createDirectories(file.getParent());
      Files.writeString(file, markdown());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
