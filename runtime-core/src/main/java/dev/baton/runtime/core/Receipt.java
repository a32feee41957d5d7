package dev.baton.runtime.core;

/**
 * What became of an event in the step loop; the messaging layer turns it into an ACK or a park.
 *
 * @param detail why it was ignored or parked (null when applied)
 * @param latencyMillis dispatch-to-result time of the attempt it answered (when applied)
 * @param namespace the namespace of the instance it reached, or "" when it reached none (unknown instance, rejected)
 */
public record Receipt(Kind kind, String detail, InstanceStatus status, long latencyMillis, String namespace) {

  public enum Kind {
    /** The event moved its instance. */
    APPLIED,
    /** The same event ended that attempt before. */
    DUPLICATE,
    /** It answers no attempt in flight; a late result of a timed-out, errored or cancelled one is recorded on it. */
    STALE,
    /** No instance has its id: park it with the reason. */
    UNKNOWN_INSTANCE,
    /** Its instance belongs to another workflow or namespace: park it with the reason. */
    REJECTED
  }

  public static Receipt applied(String namespace, InstanceStatus status, long latencyMillis) {
    return new Receipt(Kind.APPLIED, null, status, latencyMillis, namespace);
  }

  /** An event that reached no instance it may move. */
  public static Receipt ignored(Kind kind, String why) {
    return ignored("", kind, why);
  }

  /** An event its instance (in {@code namespace}) ignored. */
  public static Receipt ignored(String namespace, Kind kind, String why) {
    return new Receipt(kind, why, null, 0, namespace);
  }
}
