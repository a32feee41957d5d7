package dev.baton.operator.model;

import dev.baton.api.v1alpha1.AutoscalingSettings;
import dev.baton.api.v1alpha1.CommandSpec;
import dev.baton.api.v1alpha1.Outcome;
import dev.baton.api.v1alpha1.QueueSettings;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.SubscriptionSpec;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.WorkerServiceSpec;
import dev.baton.api.validation.Problem;
import dev.baton.api.validation.ProblemKind;
import dev.baton.api.validation.Validated;
import dev.baton.contract.Names;
import dev.baton.contract.RetryStaircase;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.QueueType;
import dev.baton.contract.topology.ServiceModel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * WorkerService (+ the RetryPolicies of its namespace) → {@link ServiceModel}, or the problems a person must fix.
 * Pure. It covers what the CRD schema cannot (its CEL rules are not evaluated by every API server, the dev API
 * evaluates none) and what it cannot know: names that would collide once turned into queues or environment
 * variables, and references to RetryPolicies.
 */
public final class WorkerServiceTranslator {

  /** The schema's pattern for subscription binding patterns. */
  private static final Pattern BINDING_PATTERN = Pattern.compile("^[a-z0-9_*#-]+(\\.[a-z0-9_*#-]+)*$");
  /** The schema's pattern for the Workflow a subscription receives the outcomes of. */
  private static final Pattern WORKFLOW = Pattern.compile(SubscriptionSpec.WORKFLOW_PATTERN);
  private static final int MAX_PREFETCH = 65535;
  private static final int MAX_LABEL_VALUE = 63;

  private WorkerServiceTranslator() {}

  /**
   * The service name this resource claims in the vhost, when it is a usable one. Claims decide conflicts between
   * resources (the older one keeps a name), even while the rest of a spec is still invalid.
   */
  public static Optional<String> claimedServiceName(WorkerService ws) {
    String name = ws.serviceName();
    return Names.isValidToken(name) && !Names.RESERVED_SERVICE_NAMES.contains(name) ? Optional.of(name) : Optional.empty();
  }

  /** Who holds which service name among these WorkerServices (all namespaces), without claim rules. */
  public static NameClaims<WorkerService> claims(Collection<WorkerService> all) {
    return claims(all, Tenancy.CLOSED);
  }

  /** As {@link #claims(Collection)}, where a WorkerService claims only a name its namespace may claim. */
  public static NameClaims<WorkerService> claims(Collection<WorkerService> all, Tenancy tenancy) {
    return NameClaims.of(all, ws -> claim(ws, tenancy), WorkerServiceTranslator::incumbent);
  }

  /**
   * As {@link #claims(Collection, Tenancy)}, with the claimants of a name looked up when it is asked about (the
   * informer's index by {@link #claim}).
   */
  public static NameClaims<WorkerService> claims(Function<String, Collection<WorkerService>> claimants,
      Tenancy tenancy) {
    return NameClaims.indexed(claimants, ws -> claim(ws, tenancy), WorkerServiceTranslator::incumbent);
  }

  /** The service name a WorkerService claims under the tenancy rules, if any. */
  public static Optional<String> claim(WorkerService ws, Tenancy tenancy) {
    return claimedServiceName(ws).filter(name -> tenancy.mayClaim(ws.getMetadata().getNamespace(), name));
  }

  private static boolean incumbent(WorkerService ws) {
    return ws.getStatus() != null && ws.serviceName().equals(ws.getStatus().getService())
        && !NameClaims.inConflict(ws.getStatus());
  }

  /**
   * @param retryPolicies the RetryPolicy of the resource's namespace with a given name, if there is one
   */
  public static Validated<ServiceModel> fromCrd(WorkerService ws, Function<String, Optional<RetryPolicy>> retryPolicies) {
    WorkerServiceSpec spec = ws.getSpec() == null ? new WorkerServiceSpec() : ws.getSpec();
    Optional<Validated<ServiceModel>> unknown = spec.refusedForUnknownValues();
    if (unknown.isPresent()) {
      return unknown.get();
    }
    List<Problem> problems = new ArrayList<>();
    String service = ws.serviceName();
    checkServiceName(ws, spec, service, problems);

    Map<String, String> queueOwners = new HashMap<>();
    Map<String, String> variableOwners = new HashMap<>();
    List<ServiceModel.Command> commands = new ArrayList<>();
    List<CommandSpec> commandSpecs = spec.getCommands();
    for (int i = 0; i < commandSpecs.size(); i++) {
      CommandSpec c = commandSpecs.get(i);
      String field = "spec.commands[" + i + "]";
      if (checkConsumerName(field, c.getName(), queueOwners, variableOwners, problems)) {
        staircase(field, "command '" + c.getName() + "'", c.getRetryPolicy(), ws, retryPolicies, problems)
            .ifPresent(r -> commands.add(new ServiceModel.Command(c.getName(), r)));
      }
    }
    List<ServiceModel.Subscription> subscriptions = new ArrayList<>();
    List<SubscriptionSpec> subscriptionSpecs = spec.getSubscriptions();
    for (int i = 0; i < subscriptionSpecs.size(); i++) {
      SubscriptionSpec s = subscriptionSpecs.get(i);
      String field = "spec.subscriptions[" + i + "]";
      boolean ok = checkConsumerName(field, s.getName(), queueOwners, variableOwners, problems);
      Optional<ServiceModel.Source> source = source(field, s, ws.getMetadata().getNamespace(), problems);
      Optional<RetryStaircase> retry =
          staircase(field, "subscription '" + s.getName() + "'", s.getRetryPolicy(), ws, retryPolicies, problems);
      if (ok && source.isPresent() && retry.isPresent()) {
        subscriptions.add(new ServiceModel.Subscription(s.getName(), source.get(), retry.get()));
      }
    }
    QueueSettings queue = spec.getQueue();
    Integer prefetch = queue.getPrefetch();
    if (prefetch != null && (prefetch < 1 || prefetch > MAX_PREFETCH)) {
      problems.add(Problem.invalid("spec.queue.prefetch is " + prefetch + ": it must be between 1 and " + MAX_PREFETCH));
    }
    if (spec.getDeployment() != null) {
      problems.addAll(WorkerPodTranslator.fromCrd(spec.getDeployment()).problems());
    }
    if (spec.getDeployment() != null && ws.getMetadata().getName().length() > MAX_LABEL_VALUE) {
      problems.add(Problem.invalid("metadata.name is longer than " + MAX_LABEL_VALUE + " characters: with "
          + "spec.deployment it labels the worker pods, and label values are limited to " + MAX_LABEL_VALUE));
    }
    if (spec.getDeployment() != null && spec.getDeployment().getReplicas() != null
        && spec.getDeployment().getReplicas() < 0) {
      problems.add(Problem.invalid("spec.deployment.replicas must not be negative"));
    }
    checkAutoscaling(spec.getAutoscaling(), problems);
    QueueType type = queue.getType() == null ? QueueType.CLASSIC : queue.getType().toQueueType();
    return Validated.of(problems, () -> new ServiceModel(service, type, commands, subscriptions));
  }

  /**
   * Where a subscription's events come from: another service's events by a pattern, or the outcomes of a Workflow
   * ({@code workflow}, in the subscriber's namespace unless written {@code <namespace>/<name>}; all four outcomes
   * unless {@code outcomes} lists some). Exactly one of {@code service} and {@code workflow}, as the schema says.
   */
  private static Optional<ServiceModel.Source> source(String field, SubscriptionSpec s, String namespace,
      List<Problem> problems) {
    boolean service = s.getService() != null;
    boolean workflow = s.getWorkflow() != null;
    if (service == workflow) {
      problems.add(Problem.invalid(field + ": set exactly one of service (another service's events) and workflow (a "
          + "Workflow's instance outcomes)"));
      return Optional.empty();
    }
    return service ? serviceEvents(field, s, problems) : workflowOutcomes(field, s, namespace, problems);
  }

  private static Optional<ServiceModel.Source> serviceEvents(String field, SubscriptionSpec s, List<Problem> problems) {
    boolean ok = true;
    if (!Names.isValidToken(s.getService())) {
      problems.add(Problem.invalid(field + ".service '" + s.getService()
          + "' is not a service name: lowercase letters, digits, '_' and '-', no dots"));
      ok = false;
    }
    if (s.getPattern() == null || !BINDING_PATTERN.matcher(s.getPattern()).matches()) {
      problems.add(Problem.invalid(field + ".pattern '" + s.getPattern()
          + "' is not a topic pattern over <entity>.<action>.<result>, e.g. '*.pay.failed' or 'order.#'"));
      ok = false;
    }
    if (s.getOutcomes() != null) {
      problems.add(Problem.invalid(field + ".outcomes is for a subscription to a Workflow's outcomes (set workflow "
          + "instead of service)"));
      ok = false;
    }
    return ok ? Optional.of(new ServiceModel.ServiceEvents(s.getService(), s.getPattern())) : Optional.empty();
  }

  private static Optional<ServiceModel.Source> workflowOutcomes(String field, SubscriptionSpec s, String namespace,
      List<Problem> problems) {
    boolean ok = true;
    if (!WORKFLOW.matcher(s.getWorkflow()).matches()) {
      problems.add(Problem.invalid(field + ".workflow '" + s.getWorkflow() + "' is not a Workflow's name (or "
          + "<namespace>/<name>)"));
      ok = false;
    }
    if (s.getPattern() != null) {
      problems.add(Problem.invalid(field + ".pattern is for a service's events; a Workflow's outcomes are chosen "
          + "with outcomes, e.g. [failed, compensated]"));
      ok = false;
    }
    List<Outcome> listed = s.getOutcomes() == null ? List.of(Outcome.values()) : s.getOutcomes();
    if (listed.isEmpty() || listed.stream().anyMatch(Objects::isNull)) {
      problems.add(Problem.invalid(field + ".outcomes must list some of succeeded, failed, compensated, cancelled "
          + "(or be left out for all four)"));
      ok = false;
    }
    if (!ok) {
      return Optional.empty();
    }
    String[] parts = s.getWorkflow().split("/", 2);
    return Optional.of(new ServiceModel.WorkflowOutcomes(parts.length == 2 ? parts[0] : namespace,
        parts[parts.length - 1], listed.stream().map(Outcome::toInstanceOutcome).toList()));
  }

  /** The prefetch the workers use. */
  public static int prefetch(WorkerService ws) {
    Integer p = ws.getSpec() == null ? null : ws.getSpec().getQueue().getPrefetch();
    return p == null ? WorkerEnvironment.DEFAULT_PREFETCH : p;
  }

  /** The schema's rules on spec.autoscaling, for API servers that do not apply them. */
  private static void checkAutoscaling(AutoscalingSettings a, List<Problem> problems) {
    if (a == null) {
      return;
    }
    if (a.getMaxReplicas() == null || a.getMaxReplicas() < 1) {
      problems.add(Problem.invalid("spec.autoscaling.maxReplicas is required and must be at least 1"));
    }
    if (a.getMinReplicas() == null || a.getMinReplicas() < 0) {
      problems.add(Problem.invalid("spec.autoscaling.minReplicas must be 0 or more"));
    } else if (a.getMaxReplicas() != null && a.getMinReplicas() > a.getMaxReplicas()) {
      problems.add(Problem.invalid("spec.autoscaling.minReplicas (" + a.getMinReplicas()
          + ") must not exceed maxReplicas (" + a.getMaxReplicas() + ")"));
    }
    if (a.getTargetQueueDepth() == null || a.getTargetQueueDepth() < 1) {
      problems.add(Problem.invalid("spec.autoscaling.targetQueueDepth must be at least 1"));
    }
    if (a.getCooldownSeconds() == null || a.getCooldownSeconds() < 0) {
      problems.add(Problem.invalid("spec.autoscaling.cooldownSeconds must be 0 or more"));
    }
  }

  private static void checkServiceName(WorkerService ws, WorkerServiceSpec spec, String service, List<Problem> problems) {
    boolean fromMetadata = spec.getService() == null || spec.getService().isBlank();
    if (!Names.isValidToken(service)) {
      problems.add(Problem.invalid(fromMetadata
          ? "metadata.name '" + ws.getMetadata().getName() + "' cannot be used as the service name (lowercase letters, "
              + "digits, '_' and '-', no dots, at most 63 characters): set spec.service to such a name"
          : "spec.service '" + service + "' is not a service name: lowercase letters, digits, '_' and '-', no dots, "
              + "at most 63 characters"));
    } else if (Names.RESERVED_SERVICE_NAMES.contains(service)) {
      problems.add(Problem.invalid((fromMetadata ? "metadata.name" : "spec.service") + " '" + service
          + "' is reserved ('retry', 'dlx' and 'orchestrator' begin Baton's own queue names): "
          + (fromMetadata ? "set spec.service to another name" : "choose another name")));
    }
  }

  /**
   * Checks a command or subscription name: a token, unique as a queue {@code q.S.<name>}, and unique as the stem of
   * its environment variables (where '-' and '_' look the same).
   *
   * @return whether the name is usable
   */
  private static boolean checkConsumerName(String field, String name, Map<String, String> queueOwners,
      Map<String, String> variableOwners, List<Problem> problems) {
    if (!Names.isValidToken(name)) {
      problems.add(Problem.invalid(field + ".name '" + name
          + "' is not a valid name: lowercase letters, digits, '_' and '-', no dots"));
      return false;
    }
    String taken = queueOwners.putIfAbsent(name, field);
    if (taken != null) {
      problems.add(Problem.invalid(field + ".name '" + name + "' is already used by " + taken
          + ": command and subscription names must be unique, each is a queue q.<service>.<name>"));
      return false;
    }
    String stem = WorkerEnvironment.consumerPrefix(name);
    String clash = variableOwners.putIfAbsent(stem, field + " ('" + name + "')");
    if (clash != null) {
      problems.add(Problem.invalid(field + ".name '" + name + "' and " + clash
          + " both become the worker variables " + stem + "_*: rename one (they differ only in '-' versus '_')"));
      return false;
    }
    return true;
  }

  private static Optional<RetryStaircase> staircase(String field, String what, String policyName, WorkerService ws,
      Function<String, Optional<RetryPolicy>> retryPolicies, List<Problem> problems) {
    if (policyName == null || policyName.isBlank()) {
      return Optional.of(RetryStaircase.NONE);
    }
    Optional<RetryPolicy> policy = retryPolicies.apply(policyName);
    if (policy.isEmpty()) {
      problems.add(new Problem(ProblemKind.MISSING_RETRY_POLICY, field + ".retryPolicy: " + what + " uses RetryPolicy '"
          + policyName + "', which does not exist in namespace '" + ws.getMetadata().getNamespace()
          + "': create it or correct the name"));
      return Optional.empty();
    }
    Validated<RetryStaircase> staircase = RetryPolicyTranslator.fromCrd(policy.get());
    if (!staircase.isValid()) {
      problems.add(new Problem(ProblemKind.INVALID_RETRY_POLICY, field + ".retryPolicy: RetryPolicy '" + policyName
          + "' is invalid (" + staircase.message() + ")"));
      return Optional.empty();
    }
    return Optional.of(staircase.value());
  }

  /** Names of the RetryPolicies a WorkerService refers to. */
  public static Set<String> retryPolicyNames(WorkerService ws) {
    Set<String> names = new HashSet<>();
    if (ws.getSpec() != null) {
      ws.getSpec().getCommands().forEach(c -> addIfSet(names, c.getRetryPolicy()));
      ws.getSpec().getSubscriptions().forEach(s -> addIfSet(names, s.getRetryPolicy()));
    }
    return names;
  }

  /**
   * The services a WorkerService subscribes to, read from the spec as it is (valid or not): a change of one of their
   * providers may grant or withdraw a subscription.
   */
  public static Set<String> subscribedServices(WorkerService ws) {
    Set<String> names = new HashSet<>();
    if (ws.getSpec() != null) {
      ws.getSpec().getSubscriptions().forEach(s -> addIfSet(names, s.getService()));
    }
    return names;
  }

  private static void addIfSet(Set<String> names, String name) {
    if (name != null && !name.isBlank()) {
      names.add(name);
    }
  }
}
