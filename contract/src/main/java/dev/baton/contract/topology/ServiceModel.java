package dev.baton.contract.topology;

import dev.baton.contract.RetryStaircase;
import java.util.List;

/**
 * What the topology of one worker service depends on, already validated: the pure input of
 * {@link TopologyPlanner#plan(ServiceModel)}.
 */
public record ServiceModel(
    String service, QueueType queueType, List<Command> commands, List<Subscription> subscriptions) {

  public ServiceModel {
    commands = List.copyOf(commands);
    subscriptions = List.copyOf(subscriptions);
  }

  /** A command the service accepts and how its worker retries it. */
  public record Command(String name, RetryStaircase retry) {}

  /** A queue of this service bound to another service's events by a topic pattern such as {@code *.pay.failed}. */
  public record Subscription(String name, String sourceService, String pattern, RetryStaircase retry) {}
}
