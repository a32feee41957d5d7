package dev.baton.runtime.http.auth;

/**
 * The Kubernetes API could not be asked (unreachable, overloaded, or the runtime may not ask it): the request is
 * answered 503 and never let through. Its message says what the operator of the runtime can do about it; it never
 * holds a token.
 */
public final class ReviewUnavailable extends RuntimeException {

  public ReviewUnavailable(String message) {
    super(message, null, false, false);
  }
}
