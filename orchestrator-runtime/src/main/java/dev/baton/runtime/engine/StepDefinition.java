package dev.baton.runtime.engine;

import dev.baton.api.v1alpha1.OnTimeout;
import java.time.Duration;

/**
 * One step of a pinned workflow revision, with defaults resolved.
 *
 * @param timeout how long a dispatch may wait for its result; null waits indefinitely
 * @param maxDispatches with {@link OnTimeout#Redispatch}, how many times the command is sent in all
 * @param compensate the compensating command, or null when the step cannot be undone
 */
public record StepDefinition(
    int index,
    String name,
    String service,
    String command,
    String action,
    String compensate,
    Duration timeout,
    OnTimeout onTimeout,
    int maxDispatches) {

  /** The command sent in the given phase. */
  public String commandFor(Phase phase) {
    return phase == Phase.FORWARD ? command : compensate;
  }

  /**
   * The action the events of that phase carry: the step's action forward; the compensating command's name when
   * compensating (the worker copies {@code baton-action} from the command).
   */
  public String actionFor(Phase phase) {
    return phase == Phase.FORWARD ? action : compensate;
  }

  public boolean isCompensable() {
    return compensate != null;
  }
}
