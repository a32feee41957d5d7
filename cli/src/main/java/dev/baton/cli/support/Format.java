package dev.baton.cli.support;

/** {@code -o}: a table for people, JSON or YAML (the runtime's own documents) for scripts. */
public enum Format {
  table,
  json,
  yaml
}
