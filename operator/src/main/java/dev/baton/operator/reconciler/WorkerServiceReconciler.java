package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.DeletionPolicy;
import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.validation.Validated;
import dev.baton.contract.Names;
import dev.baton.contract.WorkerEnvironment;
import dev.baton.contract.topology.ServiceModel;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.autoscaling.AutoscalerPlan;
import dev.baton.operator.autoscaling.AutoscalerSecretDependent;
import dev.baton.operator.autoscaling.AutoscalingWanted;
import dev.baton.operator.autoscaling.KedaAutoscaling;
import dev.baton.operator.autoscaling.KedaDetector;
import dev.baton.operator.autoscaling.KedaServed;
import dev.baton.operator.autoscaling.ScaledObjectDependent;
import dev.baton.operator.autoscaling.TriggerAuthenticationDependent;
import dev.baton.operator.broker.BrokerException;
import dev.baton.operator.broker.BrokerSnapshot;
import dev.baton.operator.broker.PasswordHash;
import dev.baton.operator.dependent.BrokerCa;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.CredentialsSecretDependent;
import dev.baton.operator.dependent.DeploymentRequested;
import dev.baton.operator.dependent.ForeignObjects;
import dev.baton.operator.dependent.WorkerDeploymentDependent;
import dev.baton.operator.dependent.WorkerPlan;
import dev.baton.operator.model.NameClaims;
import dev.baton.operator.model.Tenancy;
import dev.baton.operator.model.WorkerServiceTranslator;
import dev.baton.operator.monitoring.DeadLetterAlerts;
import dev.baton.operator.monitoring.KubeEvents;
import dev.baton.operator.monitoring.OperatorMetrics;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.Reason;
import dev.baton.operator.status.WorkerServiceFindings;
import dev.baton.operator.status.WorkerServiceStatusWriter;
import dev.baton.operator.topology.RemovalReport;
import dev.baton.operator.topology.ServiceBrokerObjects;
import dev.baton.operator.topology.SyncReport;
import dev.baton.operator.topology.TopologySync;
import dev.baton.operator.topology.WorkerUserSync;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Dependent;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WorkerService becomes: its exchanges, queues, retry tiers, dead-letter queues and bindings (docs/design.md#broker-names), a
 * broker user with the permissions of docs/design.md#security, the credentials Secret, the workers' Deployment when asked for, and its
 * KEDA ScaledObject when autoscaling is asked for (and KEDA is installed). Every pass that reads the broker also
 * raises the dead-letter alerts of docs/design.md#runtime-semantics.
 *
 * <p>Order within one pass: validate, check the service name is ours, declare the topology, then the Secret,
 * Deployment and KEDA objects (JOSDK dependents, invoked explicitly so that nothing is deployed for a spec that is
 * invalid, in conflict or not yet on the broker), then the broker users with the Secrets' passwords. Expected failures
 * (bad spec, conflict, broker unreachable, KEDA's API forbidden) become conditions; only the unexpected is thrown for
 * JOSDK to retry (the workflow's errors too: {@link KedaAutoscaling#refusedByRbac}).
 */
@ControllerConfiguration(name = WorkerServiceReconciler.NAME)
@io.javaoperatorsdk.operator.api.reconciler.Workflow(explicitInvocation = true, handleExceptionsInReconciler = true,
    dependents = {
        @Dependent(name = "credentials", type = CredentialsSecretDependent.class),
        @Dependent(name = "deployment", type = WorkerDeploymentDependent.class, dependsOn = "credentials",
            reconcilePrecondition = DeploymentRequested.class),
        // KEDA's objects: only where KEDA's API is served, only while wanted, gone with the Deployment.
        @Dependent(name = "autoscaler-credentials", type = AutoscalerSecretDependent.class, dependsOn = "deployment",
            activationCondition = KedaServed.class, reconcilePrecondition = AutoscalingWanted.class),
        @Dependent(name = "trigger-authentication", type = TriggerAuthenticationDependent.class,
            dependsOn = "autoscaler-credentials", activationCondition = KedaServed.class),
        @Dependent(name = "scaled-object", type = ScaledObjectDependent.class, dependsOn = "trigger-authentication",
            activationCondition = KedaServed.class)})
public class WorkerServiceReconciler implements Reconciler<WorkerService>, Cleaner<WorkerService> {

  public static final String NAME = "workerservice";
  private static final Logger LOG = LoggerFactory.getLogger(WorkerServiceReconciler.class);
  private static final Duration DRAIN_CHECK = Duration.ofSeconds(5);

  private final OperatorSettings settings;
  /** The broker's CA certificate (PEM) that workers get in their Secrets, or null. */
  private final String brokerCa;
  private final ServiceBrokerObjects topology;
  private final WorkerUserSync users;
  private final KedaAutoscaling autoscaling;
  private final DeadLetterAlerts deadLetters;
  private final WorkerServiceStatusWriter status;
  private final Backoff backoff;
  private final FreshPasses<ServicePass> passes;
  private volatile InformerEventSource<RetryPolicy, WorkerService> retryPolicies;

  public WorkerServiceReconciler(BrokerSnapshot broker, OperatorSettings settings, Clock clock, KubeEvents events,
      OperatorMetrics metrics) {
    this.settings = settings;
    this.brokerCa = BrokerCa.read(settings);
    this.topology = new ServiceBrokerObjects(new TopologySync(broker));
    this.users = new WorkerUserSync(broker);
    this.autoscaling = new KedaAutoscaling(new KedaDetector(settings.resync(), clock), users, settings);
    this.deadLetters = new DeadLetterAlerts(events, metrics);
    this.status = new WorkerServiceStatusWriter(clock, events, settings.statusInterval());
    this.backoff = new Backoff(settings.resync());
    this.passes = new FreshPasses<>(settings.resync(), clock);
  }

  @Override
  public List<EventSource<?, WorkerService>> prepareEventSources(EventSourceContext<WorkerService> context) {
    // A changed RetryPolicy reconciles the WorkerServices of its namespace that use it.
    retryPolicies = new InformerEventSource<>(InformerEventSourceConfiguration.from(RetryPolicy.class, WorkerService.class)
        .withName("retry-policies")
        .withSecondaryToPrimaryMapper((RetryPolicy policy) -> context.getPrimaryCache()
            .list(policy.getMetadata().getNamespace())
            .filter(ws -> WorkerServiceTranslator.retryPolicyNames(ws).contains(policy.getMetadata().getName()))
            .map(ResourceID::fromResource)
            .collect(Collectors.toSet()))
        .build(), context);
    return List.of(retryPolicies,
        ClaimPeers.eventSource(WorkerService.class, context, WorkerServiceTranslator::claimedServiceName));
  }

  @Override
  public UpdateControl<WorkerService> reconcile(WorkerService ws, Context<WorkerService> context) {
    String namespace = ws.getMetadata().getNamespace();
    Validated<ServiceModel> model = WorkerServiceTranslator.fromCrd(ws,
        name -> retryPolicies.get(new ResourceID(name, namespace)));
    if (!model.isValid()) {
      passes.forget(ResourceID.fromResource(ws));
      return status.write(ws, unapplied(ws, context, ConditionState.failed(Reason.of(model), model.message())));
    }
    String service = model.value().service();
    NameClaims<WorkerService> claims = claims(context);
    Optional<String> forbidden = forbidden(ws, model.value(), claims);
    if (forbidden.isPresent()) {
      passes.forget(ResourceID.fromResource(ws));
      return status.write(ws, unapplied(ws, context, ConditionState.failed(Reason.FORBIDDEN, forbidden.get())));
    }
    if (!claims.holds(ws, service)) {
      passes.forget(ResourceID.fromResource(ws));
      String holder = claims.holder(service).map(NameClaims::describe).orElse("another WorkerService");
      return status.write(ws, unapplied(ws, context, ConditionState.failed(Reason.CONFLICT, "service '" + service
          + "' is already provided by WorkerService " + holder + ", which is older; nothing is declared for this one: "
          + "set another spec.service, or delete one of the two")));
    }

    Optional<String> foreign = ForeignObjects.blocking(ws, context);
    if (foreign.isPresent()) {
      passes.forget(ResourceID.fromResource(ws));
      return status.write(ws, unapplied(ws, context, ConditionState.failed(Reason.CONFLICT, foreign.get())));
    }
    Validated<Optional<String>> imported = ImportedPassword.of(ws, context.getClient());
    if (!imported.isValid()) {
      passes.forget(ResourceID.fromResource(ws));
      return status.write(ws, unapplied(ws, context, ConditionState.failed(Reason.of(imported), imported.message())));
    }
    ServiceTopology plan = TopologyPlanner.plan(model.value());
    String username = Names.workerUser(settings.userPrefix(), service);
    ResourceID id = ResourceID.fromResource(ws);
    Long generation = ws.getMetadata().getGeneration();
    // A reconciliation that brings nothing new for the broker (a Deployment's replicas became available, the Secret's
    // informer caught up) reuses the last pass instead of comparing the broker again.
    Optional<ServicePass> fresh = passes.reusable(id, generation, plan);
    Instant startedAt = passes.now();
    passes.forget(id); // remembered again only if this pass completes
    try {
      SyncReport report;
      if (fresh.isPresent()) {
        report = fresh.get().report();
      } else {
        retireRenamedService(ws, service, claims);
        report = topology.declare(plan);
      }
      new WorkerPlan(username, settings.amqpHost(), settings.amqpPort(), settings.vhost(),
          new WorkerEnvironment(model.value(), WorkerServiceTranslator.prefetch(ws)).variables(),
          !autoscaling.ownsReplicas(ws, context), imported.value().orElse(null), settings.amqpTls(),
          brokerCa).handTo(context);
      AutoscalerPlan scalingPlan = autoscaling.plan(ws, plan, context);
      boolean kedaRefused = KedaAutoscaling.refusedByRbac(
          context.managedWorkflowAndDependentResourceContext().reconcileManagedWorkflow());
      Secret secret = CredentialsSecretDependent.current(ws, context)
          .orElseThrow(() -> new IllegalStateException("the credentials Secret is not in the cache after reconciling it"));
      List<String> actions = new ArrayList<>(fresh.isPresent() ? List.of() : report.actions());
      String password = Credentials.password(secret).orElseThrow();
      String passwordDigest = PasswordHash.digest(password);
      if (fresh.isEmpty() || !fresh.get().passwordDigest().equals(passwordDigest)) {
        actions.addAll(users.ensure(username, password, plan.workerPermissions()));
      }
      ConditionState scaling = autoscaling.verdict(ws, scalingPlan, kedaRefused, context, actions);
      deadLetters.observe(ws, plan, report);
      if (!actions.isEmpty()) {
        LOG.info("WorkerService {} (service '{}'): {}", id, service, String.join("; ", actions));
      }
      backoff.reset(id);
      if (report.draining().isEmpty()) {
        passes.remember(id, generation, plan, new ServicePass(report, passwordDigest), startedAt);
      }
      UpdateControl<WorkerService> result = status.write(ws, new WorkerServiceFindings(service,
          topologyVerdict(plan, report), plan, report, username, secret.getMetadata().getName(),
          DeploymentRequested.isRequested(ws), deployment(context), scaling));
      // Old retry tiers empty as their TTLs expire: look again soon rather than at the next resync.
      return report.draining().isEmpty() ? result : result.rescheduleAfter(min(DRAIN_CHECK, settings.resync()));
    } catch (BrokerException e) {
      Duration delay = backoff.after(e, id, "WorkerService");
      return status.write(ws, unapplied(ws, context, ConditionState.failed(e.failure().reason(), e.getMessage())))
          .rescheduleAfter(delay);
    }
  }

  /**
   * What a broker pass found, and the password the broker user was checked against (as a digest: the pass is
   * reused only while the Secret still holds that password).
   */
  private record ServicePass(SyncReport report, String passwordDigest) {}

  @Override
  public ErrorStatusUpdateControl<WorkerService> updateErrorStatus(WorkerService ws, Context<WorkerService> context,
      Exception e) {
    return status.failed(ws, e);
  }

  /**
   * Removes the dependents (Deployment, Secrets, KEDA objects), then the broker users and topology of every service name this resource held.
   * If the broker cannot be reached the finalizer stays and cleanup is retried with backoff: dropping it would
   * leave a user with live credentials and queues nobody owns. (To give up, remove the finalizer by hand.)
   */
  @Override
  public DeleteControl cleanup(WorkerService ws, Context<WorkerService> context) {
    autoscaling.planCleanup(ws, context);
    context.managedWorkflowAndDependentResourceContext().cleanupManageWorkflow()
        .throwAggregateExceptionIfErrorsPresent();
    ResourceID id = ResourceID.fromResource(ws);
    passes.forget(id);
    status.forget(ws);
    boolean retain = ws.getSpec() == null || ws.getSpec().getDeletionPolicy() != DeletionPolicy.Delete;
    try {
      boolean complete = true;
      for (String service : heldServiceNames(ws, claims(context))) {
        if (KedaAutoscaling.concerns(ws)) {
          autoscaling.removeUser(service);
        }
        deadLetters.forget(service);
        users.remove(Names.workerUser(settings.userPrefix(), service));
        RemovalReport removed = topology.remove(service, retain);
        complete &= removed.complete();
        LOG.info("WorkerService {} deleted: removed user {}; {}", id, Names.workerUser(settings.userPrefix(), service),
            removed.describe());
      }
      backoff.reset(id);
      // Empty quorum queues are deleted a few seconds after they were unbound: the finalizer waits for that.
      return complete ? DeleteControl.defaultDelete()
          : DeleteControl.noFinalizerRemoval().rescheduleAfter(min(DRAIN_CHECK, settings.resync()));
    } catch (BrokerException e) {
      return DeleteControl.noFinalizerRemoval()
          .rescheduleAfter(backoff.after(e, id, "keeping the finalizer of WorkerService"));
    }
  }

  /** When spec.service changed, the old service's objects and user go (per deletionPolicy), unless another took it. */
  private void retireRenamedService(WorkerService ws, String service, NameClaims<WorkerService> claims) {
    String previous = ws.getStatus() == null ? null : ws.getStatus().getService();
    if (previous != null && !previous.equals(service) && Names.isValidToken(previous) && claims.isFreeFor(ws, previous)) {
      boolean retain = ws.getSpec().getDeletionPolicy() != DeletionPolicy.Delete;
      users.remove(Names.workerUser(settings.userPrefix(), previous));
      users.remove(Names.autoscalerUser(settings.userPrefix(), previous));
      deadLetters.forget(previous);
      RemovalReport removed = topology.remove(previous, retain);
      LOG.info("WorkerService {} renamed its service '{}' to '{}': {}", ResourceID.fromResource(ws), previous,
          service, removed.describe());
    }
  }

  private static Set<String> heldServiceNames(WorkerService ws, NameClaims<WorkerService> claims) {
    Set<String> names = new LinkedHashSet<>();
    WorkerServiceTranslator.claimedServiceName(ws).ifPresent(names::add);
    if (ws.getStatus() != null && ws.getStatus().getService() != null) {
      names.add(ws.getStatus().getService());
    }
    return names.stream().filter(Names::isValidToken).filter(n -> !Names.RESERVED_SERVICE_NAMES.contains(n))
        .filter(n -> claims.isFreeFor(ws, n)).collect(Collectors.toCollection(LinkedHashSet::new));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** What the tenancy rules refuse this WorkerService: its service name, or a service it subscribes to. */
  private Optional<String> forbidden(WorkerService ws, ServiceModel model, NameClaims<WorkerService> claims) {
    Tenancy tenancy = settings.tenancy();
    Optional<String> claim = tenancy.claimRefusal(ws.getMetadata().getNamespace(), model.service());
    if (claim.isPresent()) {
      return claim;
    }
    for (ServiceModel.Subscription s : model.subscriptions()) {
      Optional<String> refused = tenancy.subscriptionRefusal(ws, s.sourceService(), claims.holder(s.sourceService()));
      if (refused.isPresent()) {
        return Optional.of("subscription '" + s.name() + "': " + refused.get());
      }
    }
    return Optional.empty();
  }

  private NameClaims<WorkerService> claims(Context<WorkerService> context) {
    return WorkerServiceTranslator.claims(context.getPrimaryCache().list().toList(), settings.tenancy());
  }

  private static ConditionState topologyVerdict(ServiceTopology plan, SyncReport report) {
    return ConditionState.of(report, ServiceBrokerObjects.SPEC_FIELDS, ConditionState.ok(Reason.DECLARED, plan.exchanges().size()
        + " exchanges, " + plan.queues().size() + " queues, " + plan.bindings().size()
        + " bindings and user permissions are in place"));
  }

  /**
   * Findings of a pass that did not (fully) apply the spec: what exists is reported, nothing is claimed ready. The
   * service name stays the one the broker objects carry (status.service): after a rename, it is what tells a later
   * pass — or the deletion — which user and queues of the old name to retire, so a failed pass must not overwrite it.
   */
  private static WorkerServiceFindings unapplied(WorkerService ws, Context<WorkerService> context, ConditionState verdict) {
    Optional<Secret> secret = CredentialsSecretDependent.current(ws, context);
    String username = ws.getStatus() == null ? null : ws.getStatus().getUsername();
    String inUse = ws.getStatus() == null ? null : ws.getStatus().getService();
    return new WorkerServiceFindings(inUse, verdict, null, null, secret.isPresent() ? username : null,
        secret.map(s -> s.getMetadata().getName()).orElse(null), DeploymentRequested.isRequested(ws),
        deployment(context), null);
  }

  private static Deployment deployment(Context<WorkerService> context) {
    return context.getSecondaryResource(Deployment.class).orElse(null);
  }
}
