package dev.baton.contract.topology;

import dev.baton.contract.InstanceOutcome;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import java.util.EnumSet;
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

  /** A queue of this service bound to events it does not publish itself, and how its worker retries them. */
  public record Subscription(String name, Source source, RetryStaircase retry) {

    /** Another service's events by a topic pattern such as {@code *.pay.failed}. */
    public Subscription(String name, String sourceService, String pattern, RetryStaircase retry) {
      this(name, new ServiceEvents(sourceService, pattern), retry);
    }
  }

  /** Where a subscription's events come from: the exchange its queue is bound to, and with which keys. */
  public sealed interface Source permits ServiceEvents, WorkflowOutcomes {

    String exchange();

    /** The binding keys (topic patterns) from {@link #exchange()} to the subscription's queue. */
    List<String> bindingKeys();
  }

  /** The events of service {@code service} whose routing key {@code <entity>.<action>.<result>} matches {@code pattern}. */
  public record ServiceEvents(String service, String pattern) implements Source {

    @Override
    public String exchange() {
      return Names.eventExchange(service);
    }

    @Override
    public List<String> bindingKeys() {
      return List.of(pattern);
    }
  }

  /**
   * The outcome events of the instances of Workflow {@code workflow} in {@code namespace} (docs/design.md#broker-names):
   * those of {@code outcomes}, in their declared order.
   */
  public record WorkflowOutcomes(String namespace, String workflow, List<InstanceOutcome> outcomes) implements Source {

    public WorkflowOutcomes {
      if (outcomes.isEmpty()) {
        throw new IllegalArgumentException("a subscription to outcomes names at least one");
      }
      outcomes = List.copyOf(EnumSet.copyOf(outcomes)); // each once, in the enum's order
    }

    @Override
    public String exchange() {
      return Names.instanceOutcomeExchange();
    }

    /** One key per outcome, or one pattern for all of them. */
    @Override
    public List<String> bindingKeys() {
      if (outcomes.size() == InstanceOutcome.values().length) {
        return List.of(Names.instanceOutcomesPattern(namespace, workflow));
      }
      return outcomes.stream().map(o -> Names.instanceOutcomeRoutingKey(namespace, workflow, o)).toList();
    }
  }
}
