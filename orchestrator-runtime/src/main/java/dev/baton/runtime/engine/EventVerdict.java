package dev.baton.runtime.engine;

/**
 * What became of an event in the step loop; the messaging layer turns it into an ACK or a park.
 *
 * @param detail why it was ignored or parked (null when applied)
 * @param latencyMillis dispatch-to-result time of the execution it answered (when applied)
 * @param dispatched a command was written to the outbox
 */
public record EventVerdict(Kind kind, String detail, InstanceStatus status, long latencyMillis, boolean dispatched) {

  public enum Kind {
    /** The event moved its instance. */
    APPLIED,
    /** Its message id was applied before. */
    DUPLICATE,
    /** It answers an execution that is no longer in flight. */
    STALE,
    /** No instance has its id: park it with the reason. */
    UNKNOWN_INSTANCE,
    /** Its instance belongs to another workflow or namespace: park it with the reason. */
    REJECTED
  }

  public static EventVerdict applied(InstanceStatus status, long latencyMillis, boolean dispatched) {
    return new EventVerdict(Kind.APPLIED, null, status, latencyMillis, dispatched);
  }

  public static EventVerdict duplicate() {
    return new EventVerdict(Kind.DUPLICATE, "message id already processed", null, 0, false);
  }

  public static EventVerdict stale(String why) {
    return new EventVerdict(Kind.STALE, why, null, 0, false);
  }

  public static EventVerdict unknownInstance(String why) {
    return new EventVerdict(Kind.UNKNOWN_INSTANCE, why, null, 0, false);
  }

  public static EventVerdict rejected(String why) {
    return new EventVerdict(Kind.REJECTED, why, null, 0, false);
  }
}
