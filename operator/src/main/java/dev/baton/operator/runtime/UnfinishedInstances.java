package dev.baton.operator.runtime;

/**
 * What the runtime says about a Workflow's unfinished instances, which deleting it waits for
 * (docs/design.md#runtime-semantics). Only an answer read after the deletion was seen counts, and one that cannot be
 * read is no answer: an outage or a stale answer never strands an instance.
 *
 * @param state whether any are left, as far as is known
 * @param running with {@link State#SOME}: how many run, as the runtime's counts show them (0 when they do not yet)
 * @param problem with {@link State#UNREADABLE}: why the runtime's answer cannot be read
 */
public record UnfinishedInstances(State state, long running, String problem) {

  public enum State {
    /** The runtime lists no unfinished instance of the Workflow. */
    NONE,
    /** The runtime lists the Workflow: it has unfinished instances. */
    SOME,
    /** The runtime has not answered since the deletion was seen (the next poll will tell). */
    ASKING,
    /** The runtime's routes cannot be read. */
    UNREADABLE
  }

  public static UnfinishedInstances none() {
    return new UnfinishedInstances(State.NONE, 0, null);
  }

  public static UnfinishedInstances some(long running) {
    return new UnfinishedInstances(State.SOME, running, null);
  }

  public static UnfinishedInstances asking() {
    return new UnfinishedInstances(State.ASKING, 0, null);
  }

  public static UnfinishedInstances unreadable(String problem) {
    return new UnfinishedInstances(State.UNREADABLE, 0, problem);
  }
}
