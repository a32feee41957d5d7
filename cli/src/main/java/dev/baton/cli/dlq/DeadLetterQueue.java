package dev.baton.cli.dlq;

import dev.baton.cli.support.CliException;
import dev.baton.cli.support.ExitCodes;

/**
 * A dead-letter queue's name, {@code q.dlx.<service>.<consumer>} (docs/design.md#broker-names): the service and the command or
 * subscription it parks messages of. {@code q.dlx.orchestrator.<workflow>} is where the runtime parks events it
 * could not use.
 */
record DeadLetterQueue(String name, String service, String consumer) {

  static final String PREFIX = "q.dlx.";

  static boolean isDeadLetterQueue(String name) {
    return name.startsWith(PREFIX) && name.indexOf('.', PREFIX.length()) > PREFIX.length();
  }

  /** @throws CliException (usage) when the name is not one of a dead-letter queue */
  static DeadLetterQueue parse(String name) {
    if (!isDeadLetterQueue(name) || name.endsWith(".")) {
      throw new CliException(ExitCodes.USAGE, "'" + name + "' is not a dead-letter queue: their names are"
          + " q.dlx.<service>.<command or subscription>, e.g. q.dlx.payment.pay (see baton dlq list)");
    }
    String rest = name.substring(PREFIX.length());
    int dot = rest.indexOf('.');
    return new DeadLetterQueue(name, rest.substring(0, dot), rest.substring(dot + 1));
  }

  boolean isOrchestrator() {
    return service.equals("orchestrator");
  }
}
