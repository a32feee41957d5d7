package dev.baton.operator.broker;

import dev.baton.operator.status.Reason;

/**
 * A request to the broker failed. Its {@link Failure} becomes the condition reason; its message is written into
 * the condition as is, so it never holds credentials.
 */
public class BrokerException extends RuntimeException {

  /** Why a request failed, as far as the operator can act on it (Strimzi-style: a small enum of reasons). */
  public enum Failure {
    /** No answer, or a server error: retried with backoff, nothing is reported ready meanwhile. */
    UNAVAILABLE(Reason.BROKER_UNAVAILABLE),
    /** The broker answered and refused: credentials, permissions or a request it will not accept. */
    REJECTED(Reason.BROKER_REJECTED);

    private final Reason reason;

    Failure(Reason reason) {
      this.reason = reason;
    }

    public Reason reason() {
      return reason;
    }
  }

  private final Failure failure;

  public BrokerException(Failure failure, String message, Throwable cause) {
    super(message, cause);
    this.failure = failure;
  }

  public BrokerException(Failure failure, String message) {
    this(failure, message, null);
  }

  public Failure failure() {
    return failure;
  }
}
