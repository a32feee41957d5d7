package dev.baton.runtime.ui;

import java.util.Locale;

/** What a step is, as the picture draws it (docs/design.md#workflow-language). */
enum StepKind {
  TASK, PARALLEL, CHOICE, WAIT, DELAY;

  /**
   * The kind of a step in the instance document: {@code task}, {@code parallel}, ... ({@code STEP} and
   * {@code COMPENSATION}, as the runtime writes them today, are tasks).
   */
  static StepKind parse(String text) {
    if (text == null) {
      return TASK;
    }
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "parallel" -> PARALLEL;
      case "choice" -> CHOICE;
      case "wait" -> WAIT;
      case "delay" -> DELAY;
      default -> TASK;
    };
  }

  /** A group holds branches of steps; the others are boxes. */
  boolean isGroup() {
    return this == PARALLEL || this == CHOICE;
  }

  String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
