package dev.baton.contract.settings;

import java.util.List;

/**
 * Some settings could not be read: one line per bad variable, each starting with its name, all in the message
 * (joined by {@code "; "}) so that one start-up shows everything to fix.
 */
public final class InvalidSettingsException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  public InvalidSettingsException(List<String> problems) {
    super(String.join("; ", problems));
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("no problems to report");
    }
    this.problems = List.copyOf(problems);
  }

  /** One line per bad variable, e.g. {@code BATON_HTTP_PORT: expected a whole number from 0 to 65535, got 'x'}. */
  public List<String> problems() {
    return problems;
  }
}
