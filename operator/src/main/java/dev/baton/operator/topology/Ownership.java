package dev.baton.operator.topology;

import dev.baton.contract.Names;
import dev.baton.contract.topology.QueueSpec;
import dev.baton.operator.broker.BrokerQueue;
import dev.baton.operator.broker.BrokerSnapshot;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which broker objects one resource owns, by name (the patterns come from {@link Names}). Ownership by name lets the
 * operator find what a spec no longer lists (an old retry tier, a removed command) and what to remove on deletion,
 * without remembering anything; a binding belongs to the owner of its destination queue.
 */
public final class Ownership {

  /** @param prefix what every name the pattern matches begins with, to look them up in a sorted index */
  private record QueuePattern(String prefix, Pattern pattern, QueueSpec.Role role) {}

  private final String owner;
  private final Set<String> exchanges;
  private final List<QueuePattern> queues;

  private Ownership(String owner, Set<String> exchanges, List<QueuePattern> queues) {
    this.owner = owner;
    this.exchanges = exchanges;
    this.queues = queues;
  }

  /** Service S owns its three exchanges and {@code q.S.*}, {@code q.retry.S.*.*}, {@code q.dlx.S.*}. */
  public static Ownership ofService(String service) {
    return new Ownership("service '" + service + "'",
        Set.of(Names.commandExchange(service), Names.eventExchange(service), Names.retryExchange(service)),
        List.of(
            new QueuePattern(Names.serviceQueuePrefixes(service).get(0),
                Pattern.compile(Names.consumerQueuesRegex(service)), QueueSpec.Role.CONSUMER),
            new QueuePattern(Names.serviceQueuePrefixes(service).get(1),
                Pattern.compile(Names.retryQueuesRegex(service)), QueueSpec.Role.RETRY_TIER),
            new QueuePattern(Names.serviceQueuePrefixes(service).get(2),
                Pattern.compile(Names.deadLetterQueuesRegex(service)), QueueSpec.Role.DEAD_LETTER)));
  }

  /**
   * One command or subscription C of service S: {@code q.S.C}, its retry tiers {@code q.retry.S.C.<d>} and
   * {@code q.dlx.S.C}, and no exchange (they stay the service's).
   */
  public static Ownership ofConsumer(String service, String consumer) {
    String consumerQueue = Names.consumerQueue(service, consumer);
    String deadLetterQueue = Names.deadLetterQueue(service, consumer);
    String tierPrefix = Names.serviceQueuePrefixes(service).get(1) + consumer + ".";
    return new Ownership("'" + consumer + "' of service '" + service + "'", Set.of(), List.of(
        new QueuePattern(consumerQueue, exactly(consumerQueue), QueueSpec.Role.CONSUMER),
        new QueuePattern(tierPrefix, Pattern.compile(Pattern.quote(tierPrefix) + "[^.]+"), QueueSpec.Role.RETRY_TIER),
        new QueuePattern(deadLetterQueue, exactly(deadLetterQueue), QueueSpec.Role.DEAD_LETTER)));
  }

  /** Workflow W owns {@code q.orchestrator.W} and {@code q.dlx.orchestrator.W}; the exchanges belong to services. */
  public static Ownership ofWorkflow(String workflow) {
    return new Ownership("workflow '" + workflow + "'", Set.of(), List.of(
        new QueuePattern(Names.orchestratorQueue(workflow), exactly(Names.orchestratorQueue(workflow)),
            QueueSpec.Role.ORCHESTRATOR),
        new QueuePattern(Names.orchestratorDeadLetterQueue(workflow), exactly(Names.orchestratorDeadLetterQueue(workflow)),
            QueueSpec.Role.ORCHESTRATOR_DEAD_LETTER)));
  }

  public Optional<QueueSpec.Role> roleOf(String queue) {
    return queues.stream().filter(q -> q.pattern().matcher(queue).matches()).map(QueuePattern::role).findFirst();
  }

  /** The owner's queues among those the snapshot knows: a few sorted-index lookups, not a scan of the vhost. */
  public List<BrokerQueue> queuesIn(BrokerSnapshot snapshot) {
    Map<String, BrokerQueue> found = new LinkedHashMap<>();
    for (QueuePattern p : queues) {
      snapshot.queuesStartingWith(p.prefix()).stream().filter(q -> p.pattern().matcher(q.name()).matches())
          .forEach(q -> found.putIfAbsent(q.name(), q));
    }
    return List.copyOf(found.values());
  }

  public boolean ownsQueue(String queue) {
    return roleOf(queue).isPresent();
  }

  public boolean ownsExchange(String exchange) {
    return exchanges.contains(exchange);
  }

  /** The exchanges the owner has (none for a Workflow). */
  public Set<String> exchanges() {
    return exchanges;
  }

  @Override
  public String toString() {
    return owner;
  }

  private static Pattern exactly(String name) {
    return Pattern.compile(Pattern.quote(name));
  }
}
