package dev.baton.reliability.history;

/** The promises the {@link HistoryChecker} holds a run's history to, lettered as in the README. */
public enum Rule {
  ENDED("a", "every instance ended within the run's bound"),
  ONCE("b", "no effect applied twice"),
  NOT_AFTER_COMPENSATION("c", "no forward effect after its compensation"),
  UNDONE("d", "a compensated instance has every compensable effect undone"),
  OUTBOX_EMPTY("e", "nothing left in the outbox of an ended instance"),
  APPLIED("f", "every attempt the runtime saw succeed has its effect");

  private final String letter;
  private final String title;

  Rule(String letter, String title) {
    this.letter = letter;
    this.title = title;
  }

  public String letter() {
    return letter;
  }

  public String title() {
    return title;
  }
}
