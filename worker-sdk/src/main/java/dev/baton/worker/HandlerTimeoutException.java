package dev.baton.worker;

import java.time.Duration;

/**
 * A handler that outlived its time limit, was interrupted there, and then ended by throwing (typically the
 * {@link InterruptedException} the interrupt caused, the cause here): a technical failure, retried along the
 * staircase. Only once it has ended: until then its message is not retried, nor run again. A handler that outlives
 * its limit and then returns an outcome is no failure: its outcome is published, late.
 */
final class HandlerTimeoutException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  HandlerTimeoutException(String consumer, Duration limit, Duration ran, Throwable cause) {
    super("the handler of " + consumer + " did not finish within " + limit.toMillis() + " ms (its time limit); it was"
        + " interrupted and ended after " + ran.toMillis() + " ms with " + cause.getClass().getSimpleName(), cause);
  }
}
