package dev.baton.workflow;

/** An expression that failed at run time (a missing key, a wrong type, a comprehension over its bound ...). */
public final class ExpressionException extends RuntimeException {

  public ExpressionException(String message, Throwable cause) {
    super(message, cause);
  }

  public ExpressionException(String message) {
    super(message);
  }
}
