package dev.baton.cli.support;

import picocli.CommandLine.Option;

/** {@code -o table|wide|name|json|yaml}, shared by every command that prints something. */
public final class OutputOptions {

  @Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
      description = "Output: ${COMPLETION-CANDIDATES}. wide adds columns to a table; name prints one kind/name per"
          + " line (instance/<id>); json and yaml print whole documents (for an instance, what the runtime returns),"
          + " for scripts.")
  Format format = Format.table;

  public OutputOptions() {}

  /** Options as {@code -o format} sets them (tests, and commands that print through another's options). */
  public OutputOptions(Format format) {
    this.format = format;
  }

  public Format format() {
    return format;
  }

  /** {@code -o table}, the default: the command's usual lines. */
  public boolean isTable() {
    return format == Format.table;
  }

  /** {@code -o json} or {@code -o yaml}. */
  public boolean isDocument() {
    return format.isDocument();
  }

  /** {@code -o name}. */
  public boolean isName() {
    return format == Format.name;
  }

  /** {@code -o wide}. */
  public boolean isWide() {
    return format == Format.wide;
  }
}
