package dev.baton.cli.dlq;

import dev.baton.deadletters.DeadLetterQueue;

/**
 * {@code -o name} of the dead-letter commands, one {@code kind/name} per line as kubectl prints them: a queue as
 * {@code queue/<queue>}, a dead letter as {@code message/<queue>/<message id>} (its message_id stays the same when it
 * is replayed and dead-lettered again).
 */
final class DeadLetterNames {

  private DeadLetterNames() {}

  static String queue(DeadLetterQueue q) {
    return "queue/" + q.name();
  }

  static String message(DeadLetterQueue q, String messageId) {
    return "message/" + q.name() + "/" + messageId;
  }
}
