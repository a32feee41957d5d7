package dev.baton.cli.support;

import picocli.CommandLine.Option;

/** {@code -o table|json|yaml}, shared by every command that prints something. */
public final class OutputOptions {

  @Option(names = {"-o", "--output"}, defaultValue = "table", paramLabel = "FORMAT",
      description = "Output: ${COMPLETION-CANDIDATES}. json and yaml print whole documents (for an instance,"
          + " what the runtime returns), for scripts.")
  Format format = Format.table;

  public Format format() {
    return format;
  }

  public boolean isTable() {
    return format == Format.table;
  }
}
