package dev.baton.contract;

import dev.baton.contract.settings.SettingsReader;
import dev.baton.contract.topology.ConsumerTopology;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The environment variables through which the operator tells a worker pod where its queues are (docs/design.md#message-contract). The
 * operator writes them with {@link #variables()}; the worker SDK reads them back with {@link #read(Map)}; workers in
 * other languages read the same plain variables. The broker credentials come from the Secret by reference:
 * {@link #RABBITMQ_URI}, {@link #RABBITMQ_USERNAME}, {@link #RABBITMQ_PASSWORD}.
 *
 * <p>Per command or subscription {@code N} (upper-cased, '-' as '_'), e.g. for {@code pay}:
 * {@code BATON_CONSUMER_PAY_QUEUE=q.payment.pay}, {@code BATON_CONSUMER_PAY_MAX_ATTEMPTS=4},
 * {@code BATON_CONSUMER_PAY_DELAYS=30s,2m,10m}, {@code BATON_CONSUMER_PAY_RETRY_QUEUES=...},
 * {@code BATON_CONSUMER_PAY_DEAD_LETTER_QUEUE=q.dlx.payment.pay}; subscriptions to a service's events add
 * {@code _SOURCE} and {@code _PATTERN}, subscriptions to a Workflow's outcomes {@code _WORKFLOW}
 * ({@code <namespace>/<workflow>}) and {@code _OUTCOMES} (e.g. {@code failed,compensated}).
 */
public record WorkerEnvironment(ServiceModel model, int prefetch) {

  public static final String SERVICE = "BATON_SERVICE";
  public static final String PREFETCH = "BATON_PREFETCH";
  public static final String QUEUE_TYPE = "BATON_QUEUE_TYPE";
  public static final String COMMAND_EXCHANGE = "BATON_COMMAND_EXCHANGE";
  public static final String EVENT_EXCHANGE = "BATON_EVENT_EXCHANGE";
  public static final String RETRY_EXCHANGE = "BATON_RETRY_EXCHANGE";
  public static final String COMMANDS = "BATON_COMMANDS";
  public static final String SUBSCRIPTIONS = "BATON_SUBSCRIPTIONS";
  public static final String RABBITMQ_URI = "BATON_RABBITMQ_URI";
  public static final String RABBITMQ_USERNAME = "BATON_RABBITMQ_USERNAME";
  public static final String RABBITMQ_PASSWORD = "BATON_RABBITMQ_PASSWORD";
  /**
   * The port of the SDKs' health endpoint ({@code /healthz}, {@code /metrics}): set by the operator only when a
   * WorkerService asks for it (spec.deployment.health), read by every SDK.
   */
  public static final String HEALTH_PORT = "BATON_HEALTH_PORT";

  public static final int DEFAULT_PREFETCH = 10;

  /** The stem of a consumer's variables, e.g. {@code BATON_CONSUMER_ORDER_PAY_FAILED_NOTIFY}. */
  public static String consumerPrefix(String name) {
    return "BATON_CONSUMER_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
  }

  /** The planned names, the same the operator declares. */
  public ServiceTopology topology() {
    return TopologyPlanner.plan(model);
  }

  /** Every variable except the credentials, in a stable order. */
  public Map<String, String> variables() {
    ServiceTopology t = topology();
    Map<String, String> env = new LinkedHashMap<>();
    env.put(SERVICE, model.service());
    env.put(PREFETCH, String.valueOf(prefetch));
    env.put(QUEUE_TYPE, model.queueType().argument());
    env.put(COMMAND_EXCHANGE, t.commandExchange());
    env.put(EVENT_EXCHANGE, t.eventExchange());
    env.put(RETRY_EXCHANGE, t.retryExchange());
    env.put(COMMANDS, String.join(",", model.commands().stream().map(ServiceModel.Command::name).toList()));
    env.put(SUBSCRIPTIONS, String.join(",", model.subscriptions().stream().map(ServiceModel.Subscription::name).toList()));
    for (ConsumerTopology c : t.consumers()) {
      String p = consumerPrefix(c.name());
      env.put(p + "_QUEUE", c.queue());
      env.put(p + "_MAX_ATTEMPTS", String.valueOf(c.retry().maxAttempts()));
      env.put(p + "_DELAYS", String.join(",", c.retry().normalisedDelays()));
      env.put(p + "_RETRY_QUEUES", String.join(",", c.retryQueues()));
      env.put(p + "_DEAD_LETTER_QUEUE", c.deadLetterQueue());
    }
    for (ServiceModel.Subscription s : model.subscriptions()) {
      String p = consumerPrefix(s.name());
      if (s.source() instanceof ServiceModel.ServiceEvents events) {
        env.put(p + "_SOURCE", events.service());
        env.put(p + "_PATTERN", events.pattern());
      } else if (s.source() instanceof ServiceModel.WorkflowOutcomes outcomes) {
        env.put(p + "_WORKFLOW", outcomes.namespace() + "/" + outcomes.workflow());
        env.put(p + "_OUTCOMES", String.join(",", outcomes.outcomes().stream().map(InstanceOutcome::key).toList()));
      }
    }
    return env;
  }

  /**
   * Reads the variables back, as a worker does at start-up.
   *
   * @throws dev.baton.contract.settings.InvalidSettingsException naming every variable that is missing or malformed
   */
  public static WorkerEnvironment read(Map<String, String> env) {
    return SettingsReader.read(env, WorkerEnvironment::read);
  }

  /**
   * Reads the variables back with {@code r}, which collects the problems ({@link SettingsReader#read}); the result
   * is only meaningful when {@code r} has none.
   */
  public static WorkerEnvironment read(SettingsReader r) {
    String service = r.required(SERVICE, "a service name (lower-case letters, digits and '-')", v -> {
      if (!Names.isValidToken(v)) {
        throw new IllegalArgumentException(v);
      }
      return v;
    });
    int prefetch = r.integer(PREFETCH, DEFAULT_PREFETCH, 1, Integer.MAX_VALUE);
    QueueType queueType = r.enumeration(QUEUE_TYPE, QueueType.class, QueueType.CLASSIC);
    List<ServiceModel.Command> commands = new ArrayList<>();
    for (String name : r.list(COMMANDS, List.of())) {
      commands.add(new ServiceModel.Command(name, staircase(r, name)));
    }
    List<ServiceModel.Subscription> subscriptions = new ArrayList<>();
    for (String name : r.list(SUBSCRIPTIONS, List.of())) {
      String p = consumerPrefix(name);
      ServiceModel.Source source = r.isSet(p + "_WORKFLOW") ? outcomes(r, p)
          : new ServiceModel.ServiceEvents(r.requiredString(p + "_SOURCE"), r.requiredString(p + "_PATTERN"));
      if (source != null) {
        subscriptions.add(new ServiceModel.Subscription(name, source, staircase(r, name)));
      }
    }
    return new WorkerEnvironment(new ServiceModel(service, queueType, commands, subscriptions), prefetch);
  }

  /** A subscription to a Workflow's outcomes; null (with the problem noted) when its variables cannot be read. */
  private static ServiceModel.WorkflowOutcomes outcomes(SettingsReader r, String p) {
    String[] workflow = r.required(p + "_WORKFLOW", "<namespace>/<workflow>", v -> {
      String[] parts = v.split("/", 2);
      if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
        throw new IllegalArgumentException(v);
      }
      return parts;
    });
    List<InstanceOutcome> outcomes = new ArrayList<>();
    for (String key : r.list(p + "_OUTCOMES", List.of())) {
      InstanceOutcome.fromKey(key).ifPresentOrElse(outcomes::add, () -> r.problem(p + "_OUTCOMES",
          "expected outcomes among succeeded, failed, compensated, cancelled, got '" + key + "'"));
    }
    if (outcomes.isEmpty() && !r.isSet(p + "_OUTCOMES")) {
      r.problem(p + "_OUTCOMES", "required but not set");
    }
    return workflow == null || outcomes.isEmpty() ? null
        : new ServiceModel.WorkflowOutcomes(workflow[0], workflow[1], outcomes);
  }

  private static RetryStaircase staircase(SettingsReader r, String consumer) {
    String p = consumerPrefix(consumer);
    Integer attempts = r.integer(p + "_MAX_ATTEMPTS", null, 1, Integer.MAX_VALUE);
    List<BatonDuration> delays = r.durations(p + "_DELAYS", List.of());
    if (attempts == null) {
      return RetryStaircase.NONE;
    }
    if (attempts > 1 && delays.isEmpty()) {
      if (!r.isSet(p + "_DELAYS")) { // when set, it was malformed: already a problem
        r.problem(p + "_DELAYS", "required when " + p + "_MAX_ATTEMPTS is " + attempts + ", e.g. 30s,2m");
      }
      return RetryStaircase.NONE;
    }
    return new RetryStaircase(attempts, delays);
  }
}
