package dev.baton.contract.topology;

import dev.baton.contract.RetryStaircase;
import java.util.List;

/**
 * The names around one consumer queue of a service: where it is read, where retries wait and where dead letters
 * park. A worker needs exactly this to follow docs/design.md#message-contract.
 */
public record ConsumerTopology(
    Kind kind,
    String name,
    String queue,
    /* The command routing key, or the subscription's binding patterns (comma-separated: one per outcome). */
    String routingKey,
    RetryStaircase retry,
    List<String> retryQueues,
    String deadLetterQueue) {

  public ConsumerTopology {
    retryQueues = List.copyOf(retryQueues);
  }

  public enum Kind {
    COMMAND,
    SUBSCRIPTION
  }
}
