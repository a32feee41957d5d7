package dev.baton.cli.support;

/**
 * {@code -o}: a table for people ({@code wide}: with more columns), one {@code kind/name} per line ({@code name}) for
 * a shell's next command, JSON or YAML (the runtime's own documents) for scripts.
 */
public enum Format {
  table,
  wide,
  name,
  json,
  yaml;

  /** Whether it prints whole documents ({@code json}, {@code yaml}) rather than lines for people or a shell. */
  public boolean isDocument() {
    return this == json || this == yaml;
  }
}
