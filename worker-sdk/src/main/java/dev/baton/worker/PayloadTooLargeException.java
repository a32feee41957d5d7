package dev.baton.worker;

/**
 * A result event over the worker's limit ({@code maxResultBytes}, {@code BATON_MAX_RESULT_BYTES}): it is not
 * published, since the broker would close the channel on it (or the orchestrator refuse it) on every retry. The
 * command goes straight to its dead-letter queue with {@link #CODE} as the reason, and a small {@code error} event
 * tells the orchestrator.
 */
final class PayloadTooLargeException extends RuntimeException {

  /** {@code x-exception-type} of the dead letter and {@code errorCode} of the {@code error} event. */
  static final String CODE = "PayloadTooLarge";

  private static final long serialVersionUID = 1L;

  PayloadTooLargeException(String consumer, int size, int limit) {
    super("the result event of " + consumer + " is " + size + " bytes, over the limit of " + limit + " bytes"
        + " (maxResultBytes, BATON_MAX_RESULT_BYTES): not published");
  }
}
