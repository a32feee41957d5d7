package dev.baton.cli;

/** {@code baton dev} cannot start; the message is one line saying what is wrong and what to do. */
final class DevStackException extends RuntimeException {

  DevStackException(String message) {
    super(message);
  }

  DevStackException(String message, Throwable cause) {
    super(message, cause);
  }
}
