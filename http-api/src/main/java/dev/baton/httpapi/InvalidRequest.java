package dev.baton.httpapi;

/** A request body or parameter the API refuses (400), with the message that says what is wrong. */
public final class InvalidRequest extends IllegalArgumentException {

  public InvalidRequest(String message) {
    super(message);
  }
}
