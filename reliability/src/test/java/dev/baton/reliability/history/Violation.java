package dev.baton.reliability.history;

/** One broken rule: which, on which instance (its id and business key), and the rows that show it. */
public record Violation(Rule rule, String instanceId, String businessKey, String evidence) {

  @Override
  public String toString() {
    return "rule " + rule.letter() + " (" + rule.title() + ") broken by instance " + instanceId + " (" + businessKey
        + "): " + evidence;
  }
}
