package dev.baton.contract;

import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Every RabbitMQ name of docs/design.md#broker-names, computed here and nowhere else.
 *
 * <p>Service, command, subscription, entity and action names never contain a dot, so every name below
 * parses back unambiguously and a permission regex such as {@code ^q\.payment\.[^.]+$} cannot reach into
 * another service's queues.
 */
public final class Names {

  /** Service, command, subscription, step, entity and action names: lowercase, digits, '_' and '-', no dots. */
  public static final String TOKEN_PATTERN = "^[a-z0-9]([a-z0-9_-]{0,61}[a-z0-9])?$";

  /**
   * First words of Baton's own queue names ({@code q.retry.*}, {@code q.dlx.*}, {@code q.orchestrator.*}); a service
   * with one of these names would collide with them.
   */
  public static final Set<String> RESERVED_SERVICE_NAMES = Set.of("retry", "dlx", "orchestrator");

  private static final Pattern TOKEN = Pattern.compile(TOKEN_PATTERN);

  private Names() {}

  public static boolean isValidToken(String name) {
    return name != null && TOKEN.matcher(name).matches();
  }

  // --- a worker service S -------------------------------------------------------------------------------------

  /** {@code S.command.topic.ex}: only the orchestrator may write. */
  public static String commandExchange(String service) {
    return service + ".command.topic.ex";
  }

  /** {@code S.event.topic.ex}: only S may write. */
  public static String eventExchange(String service) {
    return service + ".event.topic.ex";
  }

  /** {@code S.retry.direct.ex}: routes by queue name to S's retry tiers and dead-letter queues. */
  public static String retryExchange(String service) {
    return service + ".retry.direct.ex";
  }

  /** {@code service.S.C}. */
  public static String commandRoutingKey(String service, String command) {
    return "service." + service + "." + command;
  }

  /** {@code q.S.C}, also {@code q.S.<subscription>}: the queue a worker consumes. */
  public static String consumerQueue(String service, String commandOrSubscription) {
    return "q." + service + "." + commandOrSubscription;
  }

  /** {@code q.retry.S.C.<d>} with d normalised, e.g. {@code q.retry.payment.pay.30s}. */
  public static String retryQueue(String service, String commandOrSubscription, BatonDuration delay) {
    return "q.retry." + service + "." + commandOrSubscription + "." + delay;
  }

  /** {@code q.dlx.S.C}: the parking lot. */
  public static String deadLetterQueue(String service, String commandOrSubscription) {
    return "q.dlx." + service + "." + commandOrSubscription;
  }

  /** The broker user a worker service connects as. */
  public static String workerUser(String userPrefix, String service) {
    return userPrefix + service;
  }

  /** The broker user the orchestrator runtime connects as ({@code orchestrator} is a reserved service name). */
  public static String orchestratorUser(String userPrefix) {
    return userPrefix + "orchestrator";
  }

  /**
   * The read-only broker user KEDA reads a service's queue depths with, {@code <prefix>S.keda}: the dot keeps it apart
   * from every worker user, since service names have none.
   */
  public static String autoscalerUser(String userPrefix, String service) {
    return userPrefix + service + ".keda";
  }

  // --- events and workflows -----------------------------------------------------------------------------------

  /** {@code E.<action>.<result>}, e.g. {@code order.pay.failed}. */
  public static String eventRoutingKey(String entity, String action, EventResult result) {
    return entity + "." + action + "." + result.key();
  }

  /** {@code q.orchestrator.W}. */
  public static String orchestratorQueue(String workflow) {
    return "q.orchestrator." + workflow;
  }

  /** {@code q.dlx.orchestrator.W}: where the runtime parks events it cannot use, with the reason in headers. */
  public static String orchestratorDeadLetterQueue(String workflow) {
    return "q.dlx.orchestrator." + workflow;
  }

  // --- instance outcomes ----------------------------------------------------------------------------------------

  /**
   * {@code baton.instance.topic.ex}: where the runtime publishes how each instance ended. One per vhost, declared by
   * the operator; only the orchestrator may write. Its name cannot be a worker service's: service exchanges end in
   * {@code .command.topic.ex}, {@code .event.topic.ex} or {@code .retry.direct.ex}.
   */
  public static String instanceOutcomeExchange() {
    return "baton.instance.topic.ex";
  }

  /**
   * {@code <namespace>.<workflow>.<outcome>}, e.g. {@code shop.order-fulfilment.failed}. The namespace is a DNS label
   * (no dots) and always the first word, the outcome always the last: a subscriber's binding, which the operator
   * begins with the subscriber's own namespace, can never match another namespace's outcomes (a Workflow name with
   * dots, which Kubernetes allows, only adds words in between).
   */
  public static String instanceOutcomeRoutingKey(String namespace, String workflow, InstanceOutcome outcome) {
    return namespace + "." + workflow + "." + outcome.key();
  }

  /** {@code <namespace>.<workflow>.*}: every outcome of one Workflow, in one binding. */
  public static String instanceOutcomesPattern(String namespace, String workflow) {
    return namespace + "." + workflow + ".*";
  }

  // --- regexes for broker permissions (docs/design.md#security) --------------------------------------------------------------------

  /** Matches exactly the queues a worker of S consumes: its command and subscription queues. */
  public static String consumerQueuesRegex(String service) {
    return "^q\\." + quote(service) + "\\.[^.]+$";
  }

  /**
   * What every name {@link #consumerQueuesRegex}, {@link #retryQueuesRegex} and {@link #deadLetterQueuesRegex} match
   * begins with ({@code q.S.}, {@code q.retry.S.}, {@code q.dlx.S.}): the operator finds a service's queues in a sorted
   * index with them instead of matching every queue of the vhost.
   */
  public static List<String> serviceQueuePrefixes(String service) {
    return List.of("q." + service + ".", "q.retry." + service + ".", "q.dlx." + service + ".");
  }

  /** Matches every retry tier of S: {@code q.retry.S.<consumer>.<delay>}. Used to find tiers a spec no longer lists. */
  public static String retryQueuesRegex(String service) {
    return "^q\\.retry\\." + quote(service) + "\\.[^.]+\\.[^.]+$";
  }

  /** Matches every dead-letter queue of S: {@code q.dlx.S.<consumer>}. */
  public static String deadLetterQueuesRegex(String service) {
    return "^q\\.dlx\\." + quote(service) + "\\.[^.]+$";
  }

  /** Matches exactly the exchanges a worker of S may publish to: its event and retry exchanges. */
  public static String workerWritableExchangesRegex(String service) {
    return "^(" + quote(eventExchange(service)) + "|" + quote(retryExchange(service)) + ")$";
  }

  /**
   * Every command exchange, the instance outcome exchange, and the default exchange the runtime parks bad events
   * through.
   */
  public static String orchestratorWritableRegex() {
    return "^([^.]+\\.command\\.topic\\.ex|" + quote(instanceOutcomeExchange()) + "|amq\\.default)$";
  }

  /** Every orchestrator queue and its parking queue. */
  public static String orchestratorReadableRegex() {
    return "^(q\\.orchestrator\\..+|q\\.dlx\\.orchestrator\\..+)$";
  }

  /** Nothing: the operator declares every object, workers and the runtime never do. */
  public static final String NOTHING_REGEX = "^$";

  private static String quote(String name) {
    // Names are tokens: only '.' would be special, and tokens have none. Escape anyway for derived names.
    return name.replace(".", "\\.");
  }
}
