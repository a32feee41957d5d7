package dev.baton.deadletters;

import java.util.Optional;

/**
 * A dead-letter queue's name, {@code q.dlx.<service>.<consumer>} (docs/design.md#broker-names): the service and the
 * command or subscription it parks messages of. {@code q.dlx.orchestrator.<workflow>} is where the runtime parks
 * events it could not use. Shared by {@code baton dlq} and the web UI's dead-letter page.
 */
public record DeadLetterQueue(String name, String service, String consumer) {

  static final String PREFIX = "q.dlx.";

  public static boolean isDeadLetterQueue(String name) {
    return name != null && name.startsWith(PREFIX) && name.indexOf('.', PREFIX.length()) > PREFIX.length()
        && !name.endsWith(".");
  }

  /** The parts of a dead-letter queue's name, or empty when the name is not one. */
  public static Optional<DeadLetterQueue> parse(String name) {
    if (!isDeadLetterQueue(name)) {
      return Optional.empty();
    }
    String rest = name.substring(PREFIX.length());
    int dot = rest.indexOf('.');
    return Optional.of(new DeadLetterQueue(name, rest.substring(0, dot), rest.substring(dot + 1)));
  }

  /** What to tell a user who named something else. */
  public static String notADeadLetterQueue(String name) {
    return "'" + name + "' is not a dead-letter queue: their names are q.dlx.<service>.<command or subscription>,"
        + " e.g. q.dlx.payment.pay (see baton dlq list)";
  }

  public boolean isOrchestrator() {
    return service.equals("orchestrator");
  }
}
