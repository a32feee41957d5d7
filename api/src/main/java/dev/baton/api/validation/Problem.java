package dev.baton.api.validation;

/**
 * One thing wrong with a spec, as a person should read it in {@code kubectl describe}: the kind becomes the condition
 * reason, the message says which field and what to do.
 */
public record Problem(ProblemKind kind, String message) {

  public static Problem invalid(String message) {
    return new Problem(ProblemKind.INVALID_SPEC, message);
  }
}
