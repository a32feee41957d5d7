package dev.baton.runtime.store;

import dev.baton.runtime.core.StateMachine;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command the broker refused, as the relay left it in the outbox for the engine (docs/design.md#runtime-semantics,
 * "refused commands fail fast"): which instance and which command, and the broker's reason.
 *
 * @param outboxId its outbox row
 * @param instanceId null for a row written before commands carried their instance, and for an instance's outcome
 *     event (its instance has ended: the row only goes)
 */
public record RefusedCommand(long outboxId, UUID instanceId, UUID messageId, String reason) {

  /**
   * RabbitMQ's channel error for a message over {@code max_message_size}: "message size X is larger than configured
   * max size Y" ("than max size Y" at its built-in ceiling).
   */
  private static final Pattern MAX_SIZE = Pattern.compile("larger than (?:configured )?max size (\\d+)");

  /** The broker's {@code max_message_size} when its reason is that the message was over it. */
  public static OptionalLong brokerMaxSize(String reason) {
    Matcher m = reason == null ? null : MAX_SIZE.matcher(reason);
    if (m == null || !m.find()) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(m.group(1)));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /** {@code PayloadTooLarge} when the broker said the message was too large (its reason names both sizes). */
  public String errorCode() {
    return brokerMaxSize(reason).isPresent() ? StateMachine.PAYLOAD_TOO_LARGE : StateMachine.COMMAND_REFUSED;
  }
}
