package dev.baton.reliability.suite;

import java.util.Locale;

/**
 * One scenario's figures. {@code lost}, {@code appliedTwice} and {@code stuck} must be 0; {@code parked} must equal
 * {@code expectedParked} (poison messages are parked on purpose, nothing else may be); {@code leftovers} (commands or
 * events still queued or in the outbox after the drain; for the operator: leaked queues, exchanges, users and
 * Secrets) must be 0. {@code recoverSeconds}: the slowest recovery after a fault ended (first instance completed
 * again; for the operator: every resource Ready again; NaN, a failure, when that did not happen within 90 s);
 * {@code drainSeconds}: from the end of the last fault until every accepted instance completed.
 */
public record Verdict(String scenario, int instances, String faults, long lost, long appliedTwice, long stuck,
    long parked, long expectedParked, long leftovers, double recoverSeconds, double drainSeconds, String notes) {

  /** The same verdict with more notes. */
  public Verdict withNotes(String more) {
    return new Verdict(scenario, instances, faults, lost, appliedTwice, stuck, parked, expectedParked, leftovers,
        recoverSeconds, drainSeconds, notes.isEmpty() ? more : notes + "; " + more);
  }

  /** The same verdict counted as a failure (the fault itself did not happen as the scenario needs). */
  public Verdict failed() {
    return new Verdict(scenario, instances, faults, lost, appliedTwice, stuck, parked, expectedParked, leftovers + 1,
        recoverSeconds, drainSeconds, notes);
  }

  public boolean ok() {
    return lost == 0 && appliedTwice == 0 && stuck == 0 && parked == expectedParked && leftovers == 0
        && instances > 0 && !Double.isNaN(drainSeconds) && !Double.isNaN(recoverSeconds);
  }

  static String seconds(double s) {
    return Double.isNaN(s) ? "n/a" : s < 0 ? "–" : String.format(Locale.ROOT, "%.1f", s);
  }

  String row() {
    return "| " + scenario + " | " + instances + " | " + faults + " | " + lost + " | " + appliedTwice + " | " + stuck
        + " | " + parked + (expectedParked > 0 ? " (of " + expectedParked + " expected)" : "") + " | " + leftovers
        + " | " + seconds(recoverSeconds) + " | " + seconds(drainSeconds) + " | " + (ok() ? "PASS" : "FAIL") + " |";
  }
}
