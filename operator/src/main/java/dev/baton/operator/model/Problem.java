package dev.baton.operator.model;

import dev.baton.operator.status.Reason;

/**
 * One thing wrong with a spec, as a person should read it in {@code kubectl describe}: the reason becomes the
 * condition reason, the message says which field and what to do.
 */
public record Problem(Reason reason, String message) {

  public static Problem invalid(String message) {
    return new Problem(Reason.INVALID_SPEC, message);
  }
}
