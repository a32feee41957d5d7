package dev.baton.operator.status;

/** The outcome of one concern of a reconciliation, as a condition will state it. */
public record Verdict(boolean ok, Reason reason, String message) {

  public static Verdict ok(Reason reason, String message) {
    return new Verdict(true, reason, message);
  }

  public static Verdict failed(Reason reason, String message) {
    return new Verdict(false, reason, message);
  }
}
