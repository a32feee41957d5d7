package dev.baton.messaging;

import java.io.IOException;

/**
 * The channel (or its connection) is down and the connection's automatic recovery is expected to bring it back: the
 * caller backs off and tries again, without opening a channel of its own next to the one being recovered.
 */
public final class AwaitingRecoveryException extends IOException {

  private static final long serialVersionUID = 1L;

  AwaitingRecoveryException(String message) {
    super(message);
  }

  AwaitingRecoveryException(String message, Throwable cause) {
    super(message, cause);
  }
}
