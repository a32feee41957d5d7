package dev.baton.worker;

import java.time.Duration;

/**
 * A handler that did not return within its timeout: a technical failure (retried along the staircase); its thread
 * was interrupted. The orchestrator stops waiting for the step then anyway.
 */
final class HandlerTimeoutException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  HandlerTimeoutException(String consumer, Duration timeout) {
    super("the handler of " + consumer + " did not finish within " + timeout.toMillis() + " ms (handler timeout);"
        + " it was interrupted");
  }
}
