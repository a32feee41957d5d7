package dev.baton.runtime.store;

import dev.baton.contract.Headers;

/**
 * The SQL of a parked step timer, in one place for the two things that park them: a pause (PauseStore) and a wait
 * for capacity (LimitStore). A parked step has no {@code deadline}; what was left of it is in {@code held_remaining}
 * until its time is given back: {@code now + remaining}, never past its instance's own deadline, and the command that
 * waited for it carries a {@code baton-deadline} to match (docs/design.md#pause-and-resume).
 */
final class ParkedTimers {

  /** Parks the timers of the steps whose ids the statement that follows selects; close it with {@code ")"}. */
  static final String PARK_IDS_IN = "UPDATE instance_step SET held_remaining = greatest(deadline - now(),"
      + " interval '0'), deadline = NULL WHERE deadline IS NOT NULL AND id IN (";

  /** The new deadline of parked step {@code s}, given back now. */
  static final String DEADLINE_BACK = "least(now() + s.held_remaining,"
      + " (SELECT i.deadline FROM workflow_instance i WHERE i.id = s.instance_id))";

  /** The {@code SET} of an {@code UPDATE instance_step s} that gives a parked step its time back. */
  static final String GIVE_BACK = "deadline = " + DEADLINE_BACK + ", held_remaining = NULL";

  /** Of step {@code s}: parked, and still waiting for its command's outcome. */
  static final String PARKED_AND_RUNNING = "s.held_remaining IS NOT NULL AND s.status = 'RUNNING'";

  /** The {@code deadline_ms} column of a {@code RETURNING} after {@link #GIVE_BACK}: the new deadline in epoch ms. */
  static final String DEADLINE_MS = "(extract(epoch FROM s.deadline) * 1000)::bigint AS deadline_ms";

  /**
   * The {@code SET} of an {@code UPDATE outbox o} that gives the command a {@code baton-deadline} of
   * {@code deadlineMs} (an expression), and the condition it needs: only a command sent with one gets a new one.
   */
  static String rewriteDeadline(String deadlineMs) {
    return "headers = jsonb_set(o.headers, '{" + Headers.DEADLINE + "}', to_jsonb(" + deadlineMs + "))";
  }

  static final String HAS_DEADLINE = "o.headers->>'" + Headers.DEADLINE + "' IS NOT NULL";

  private ParkedTimers() {}
}
