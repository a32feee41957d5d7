package dev.baton.worker;

/**
 * A message that no retry can fix: its body is not JSON, headers the contract requires are missing, or its input
 * does not fit the handler's type. The SDK dead-letters it at once, without climbing the retry staircase, and (for a
 * command that names its entity and action) publishes an {@code error} event.
 *
 * <p>Handlers may throw it too, for input they recognise as hopeless. A business outcome the orchestrator should act
 * on ("amount over limit") is not this: return {@link CommandResult#failed(String, String)} instead.
 */
public class UnprocessableMessageException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public UnprocessableMessageException(String message) {
    super(message);
  }

  public UnprocessableMessageException(String message, Throwable cause) {
    super(message, cause);
  }
}
