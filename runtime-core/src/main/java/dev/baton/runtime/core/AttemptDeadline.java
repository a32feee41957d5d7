package dev.baton.runtime.core;

import java.time.Duration;
import java.time.Instant;

/**
 * When an attempt the state machine starts times out: the one instant both its row's deadline (the runtime's timer)
 * and its command's {@code baton-deadline} (after which no worker starts it) are written with, so that a step times
 * out at the very moment its command stops being startable.
 *
 * <p>A forward task never outlives its instance: its deadline is the earlier of its own ({@code decidedAt} plus the
 * step's timeout) and the instance's ({@code spec.timeout} from its start), and a task without a timeout gets the
 * instance's. So once the instance's deadline has passed, no forward command can start anywhere, and the
 * compensations that follow cannot overtake one. Compensations, waits and delays keep their own: a compensation must
 * be able to run after the instance's deadline, and the instance's timer ends waits and delays.
 */
public final class AttemptDeadline {

  private AttemptDeadline() {}

  /**
   * @param decidedAt when the attempt was decided (the engine's clock, to the millisecond)
   * @param started the new attempt: its kind, whether it is a compensation, its {@link StepState#timeout()}
   * @param instanceDeadline the instance's deadline, or null when it has none
   * @return the attempt's deadline, or null when it has none
   */
  public static Instant of(Instant decidedAt, StepState started, Instant instanceDeadline) {
    return of(decidedAt, started.timeout(), started.kind().equals("task") && !started.isCompensation(),
        instanceDeadline);
  }

  /**
   * @param timeout the step's timeout, or null
   * @param forwardTask whether the attempt is a task going forward (not a compensation, a wait or a delay)
   */
  public static Instant of(Instant decidedAt, Duration timeout, boolean forwardTask, Instant instanceDeadline) {
    Instant own = timeout == null ? null : decidedAt.plus(timeout);
    if (instanceDeadline == null || !forwardTask) {
      return own;
    }
    return own == null || instanceDeadline.isBefore(own) ? instanceDeadline : own;
  }
}
