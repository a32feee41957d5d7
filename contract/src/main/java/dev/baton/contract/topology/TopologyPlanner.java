package dev.baton.contract.topology;

import static dev.baton.contract.topology.QueueArguments.AT_LEAST_ONCE;
import static dev.baton.contract.topology.QueueArguments.DEAD_LETTER_EXCHANGE;
import static dev.baton.contract.topology.QueueArguments.DEAD_LETTER_ROUTING_KEY;
import static dev.baton.contract.topology.QueueArguments.DEAD_LETTER_STRATEGY;
import static dev.baton.contract.topology.QueueArguments.DEFAULT_EXCHANGE;
import static dev.baton.contract.topology.QueueArguments.DELIVERY_LIMIT;
import static dev.baton.contract.topology.QueueArguments.DELIVERY_LIMIT_PARKING;
import static dev.baton.contract.topology.QueueArguments.DELIVERY_LIMIT_WITH_DEAD_LETTERING;
import static dev.baton.contract.topology.QueueArguments.MESSAGE_TTL;
import static dev.baton.contract.topology.QueueArguments.OVERFLOW;
import static dev.baton.contract.topology.QueueArguments.QUEUE_TYPE;
import static dev.baton.contract.topology.QueueArguments.REJECT_PUBLISH;

import dev.baton.contract.BatonDuration;
import dev.baton.contract.EventResult;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Turns a validated model into the exact broker objects of docs/design.md#broker-names. Pure: no I/O, so it is tested in tables
 * and shared by the operator (which declares the plan) and by tests of the runtime and the SDK.
 *
 * <p>The staircase (docs/design.md#retries-and-dead-letters): a consumer queue {@code q.S.C} dead-letters to {@code S.retry.direct.ex} with routing
 * key {@code q.S.C}; the retry exchange routes that key to the first tier (or, without retries, to the parking lot).
 * The first tier is therefore chosen by a binding, not by an immutable queue argument, so a changed RetryPolicy
 * moves one binding instead of requiring the command queue to be deleted. Each tier {@code q.retry.S.C.<d>} holds
 * messages for {@code d} and dead-letters them back to {@code S.command.topic.ex} with {@code service.S.C}.
 */
public final class TopologyPlanner {

  private TopologyPlanner() {}

  public static ServiceTopology plan(ServiceModel model) {
    String s = model.service();
    String commandEx = Names.commandExchange(s);
    String eventEx = Names.eventExchange(s);
    String retryEx = Names.retryExchange(s);

    List<ExchangeSpec> exchanges = List.of(
        new ExchangeSpec(commandEx, ExchangeSpec.Type.TOPIC),
        new ExchangeSpec(eventEx, ExchangeSpec.Type.TOPIC),
        new ExchangeSpec(retryEx, ExchangeSpec.Type.DIRECT));
    List<QueueSpec> queues = new ArrayList<>();
    List<BindingSpec> bindings = new ArrayList<>();
    List<ConsumerTopology> consumers = new ArrayList<>();

    for (ServiceModel.Command c : model.commands()) {
      String queue = Names.consumerQueue(s, c.name());
      String key = Names.commandRoutingKey(s, c.name());
      bindings.add(new BindingSpec(commandEx, queue, key));
      // Tiers return the message to the command exchange, as if the orchestrator had sent it again.
      consumers.add(planConsumer(model, ConsumerTopology.Kind.COMMAND, c.name(), key, c.retry(), commandEx, key,
          queues, bindings));
    }
    for (ServiceModel.Subscription sub : model.subscriptions()) {
      String queue = Names.consumerQueue(s, sub.name());
      List<String> keys = sub.source().bindingKeys();
      for (String key : keys) {
        bindings.add(new BindingSpec(sub.source().exchange(), queue, key));
      }
      // Tiers return the message straight to the subscription queue: going back through the source's exchange
      // would deliver it again to every other subscriber.
      consumers.add(planConsumer(model, ConsumerTopology.Kind.SUBSCRIPTION, sub.name(), String.join(",", keys),
          sub.retry(), DEFAULT_EXCHANGE, queue, queues, bindings));
    }

    PermissionSpec permissions = new PermissionSpec(
        Names.NOTHING_REGEX, Names.workerWritableExchangesRegex(s), Names.consumerQueuesRegex(s));
    return new ServiceTopology(s, commandEx, eventEx, retryEx, exchanges, queues, bindings, consumers, permissions);
  }

  private static ConsumerTopology planConsumer(
      ServiceModel model,
      ConsumerTopology.Kind kind,
      String name,
      String routingKey,
      RetryStaircase retry,
      String returnExchange,
      String returnRoutingKey,
      List<QueueSpec> queues,
      List<BindingSpec> bindings) {
    String s = model.service();
    String retryEx = Names.retryExchange(s);
    String queue = Names.consumerQueue(s, name);
    String parking = Names.deadLetterQueue(s, name);

    queues.add(new QueueSpec(queue, QueueSpec.Role.CONSUMER, deadLettering(model.queueType(), Map.of(
        QUEUE_TYPE, model.queueType().argument(),
        DEAD_LETTER_EXCHANGE, retryEx,
        DEAD_LETTER_ROUTING_KEY, queue))));

    List<String> tierNames = new ArrayList<>();
    for (BatonDuration delay : retry.tiers()) {
      String tier = Names.retryQueue(s, name, delay);
      tierNames.add(tier);
      queues.add(new QueueSpec(tier, QueueSpec.Role.RETRY_TIER, deadLettering(model.queueType(), Map.of(
          QUEUE_TYPE, model.queueType().argument(),
          MESSAGE_TTL, delay.toMillis(),
          DEAD_LETTER_EXCHANGE, returnExchange,
          DEAD_LETTER_ROUTING_KEY, returnRoutingKey))));
      bindings.add(new BindingSpec(retryEx, tier, tier));
    }
    queues.add(new QueueSpec(parking, QueueSpec.Role.DEAD_LETTER, parking(model.queueType())));
    bindings.add(new BindingSpec(retryEx, parking, parking));

    // A plain nack(requeue=false) on the consumer queue lands in the first tier, or parks when there are no retries.
    bindings.add(new BindingSpec(retryEx, tierNames.isEmpty() ? parking : tierNames.get(0), queue));
    return new ConsumerTopology(kind, name, queue, routingKey, retry, tierNames, parking);
  }

  public static OrchestratorTopology plan(WorkflowModel model) {
    String queueName = Names.orchestratorQueue(model.workflow());
    String parkingName = Names.orchestratorDeadLetterQueue(model.workflow());
    Map<String, Object> args = new LinkedHashMap<>();
    args.put(QUEUE_TYPE, model.queueType().argument());
    // A safety net: an event the runtime rejects without parking it explicitly still ends up in the parking queue.
    args.put(DEAD_LETTER_EXCHANGE, DEFAULT_EXCHANGE);
    args.put(DEAD_LETTER_ROUTING_KEY, parkingName);
    QueueSpec queue = new QueueSpec(queueName, QueueSpec.Role.ORCHESTRATOR, deadLettering(model.queueType(), args));
    QueueSpec parking = new QueueSpec(parkingName, QueueSpec.Role.ORCHESTRATOR_DEAD_LETTER,
        parking(model.queueType()));

    LinkedHashSet<BindingSpec> bindings = new LinkedHashSet<>();
    for (WorkflowModel.Step step : model.steps()) {
      addResultBindings(bindings, model.entity(), step.service(), step.action(), queueName);
      if (step.compensateAction() != null) {
        addResultBindings(bindings, model.entity(), step.service(), step.compensateAction(), queueName);
      }
    }
    return new OrchestratorTopology(model.workflow(), queue, parking, List.copyOf(bindings));
  }

  /**
   * The arguments of a queue that dead-letters (consumer queues, tiers, the orchestrator queue): on a quorum queue
   * the hop to the dead-letter target is at least once, and the delivery limit explicit (docs/design.md#platform-notes).
   * Classic queues support neither: they dead-letter at most once, and have no delivery limit.
   */
  private static Map<String, Object> deadLettering(QueueType type, Map<String, Object> base) {
    if (type != QueueType.QUORUM) {
      return base;
    }
    Map<String, Object> args = new LinkedHashMap<>(base);
    args.put(DEAD_LETTER_STRATEGY, AT_LEAST_ONCE);
    args.put(OVERFLOW, REJECT_PUBLISH);
    args.put(DELIVERY_LIMIT, DELIVERY_LIMIT_WITH_DEAD_LETTERING);
    return args;
  }

  /** A parking queue: nothing to dead-letter to, so on a quorum queue a delivery limit no one reaches. */
  private static Map<String, Object> parking(QueueType type) {
    return type == QueueType.QUORUM
        ? Map.of(QUEUE_TYPE, type.argument(), DELIVERY_LIMIT, DELIVERY_LIMIT_PARKING)
        : Map.of(QUEUE_TYPE, type.argument());
  }

  private static void addResultBindings(
      LinkedHashSet<BindingSpec> bindings, String entity, String service, String action, String queue) {
    for (EventResult result : EventResult.values()) {
      bindings.add(new BindingSpec(Names.eventExchange(service), queue, Names.eventRoutingKey(entity, action, result)));
    }
  }

  /** Permissions of the orchestrator runtime's broker user (docs/design.md#security: the only writer of command exchanges). */
  public static PermissionSpec orchestratorPermissions() {
    return new PermissionSpec(Names.NOTHING_REGEX, Names.orchestratorWritableRegex(), Names.orchestratorReadableRegex());
  }
}
