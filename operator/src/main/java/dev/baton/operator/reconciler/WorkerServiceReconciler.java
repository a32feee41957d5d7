package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.autoscaling.AutoscalerSecretDependent;
import dev.baton.operator.autoscaling.AutoscalingWanted;
import dev.baton.operator.autoscaling.KedaAutoscaling;
import dev.baton.operator.autoscaling.KedaDetector;
import dev.baton.operator.autoscaling.KedaServed;
import dev.baton.operator.autoscaling.ScaledObjectDependent;
import dev.baton.operator.autoscaling.TriggerAuthenticationDependent;
import dev.baton.operator.broker.BrokerException;
import dev.baton.operator.broker.BrokerSnapshot;
import dev.baton.operator.dependent.BrokerCa;
import dev.baton.operator.dependent.CredentialsSecretDependent;
import dev.baton.operator.dependent.DeploymentRequested;
import dev.baton.operator.dependent.WorkerDeploymentDependent;
import dev.baton.operator.dependent.WorkerDisruptionBudgetDependent;
import dev.baton.operator.model.WorkerServiceTranslator;
import dev.baton.operator.monitoring.DeadLetterAlerts;
import dev.baton.operator.monitoring.KubeEvents;
import dev.baton.operator.monitoring.OperatorMetrics;
import dev.baton.operator.reconciler.ServiceAdmission.Admission;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.WorkerServiceStatusWriter;
import dev.baton.operator.topology.ServiceBrokerObjects;
import dev.baton.operator.topology.SyncReport;
import dev.baton.operator.topology.TopologySync;
import dev.baton.operator.topology.WorkerUserSync;
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
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WorkerService becomes: its exchanges, queues, retry tiers, dead-letter queues and bindings (docs/design.md#broker-names), a
 * broker user with the permissions of docs/design.md#security, the credentials Secret, the workers' Deployment and
 * PodDisruptionBudget when asked for, and its KEDA ScaledObject when autoscaling is asked for (and KEDA is installed). Every pass that reads the broker also
 * raises the dead-letter alerts of docs/design.md#runtime-semantics.
 *
 * <p>Order within one pass: admit the spec ({@link ServiceAdmission}: valid, allowed, the service name ours, no one
 * else's objects in the way, which subscriptions are granted), declare the topology and withdraw what is no longer
 * granted ({@link BrokerDeclarations}), then the Secret, Deployment and KEDA
 * objects ({@link WorkerDependents}: JOSDK dependents, invoked explicitly so that nothing is deployed for a spec that
 * is invalid, in conflict or not yet on the broker), then the broker users with the Secrets' passwords
 * ({@link BrokerUsers}), and last the status ({@link ServiceFindings}, written by {@link WorkerServiceStatusWriter}).
 * Expected failures (bad spec, conflict, broker unreachable, KEDA's API forbidden) become conditions; only the
 * unexpected is thrown for JOSDK to retry (the workflow's errors too: {@link KedaAutoscaling#refusedByRbac}).
 */
@ControllerConfiguration(name = WorkerServiceReconciler.NAME)
@io.javaoperatorsdk.operator.api.reconciler.Workflow(explicitInvocation = true, handleExceptionsInReconciler = true,
    dependents = {
        @Dependent(name = "credentials", type = CredentialsSecretDependent.class),
        @Dependent(name = "deployment", type = WorkerDeploymentDependent.class, dependsOn = "credentials",
            reconcilePrecondition = DeploymentRequested.class),
        @Dependent(name = "disruption-budget", type = WorkerDisruptionBudgetDependent.class, dependsOn = "deployment",
            reconcilePrecondition = WorkerDisruptionBudgetDependent.Requested.class),
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
  private final ServiceAdmission admission;
  private final BrokerDeclarations declarations;
  private final WorkerDependents dependents;
  private final BrokerUsers users;
  private final DeadLetterAlerts deadLetters;
  private final WorkerServiceStatusWriter status;
  private final Backoff backoff;
  private final FreshPasses<ServicePass> passes;
  private volatile InformerEventSource<RetryPolicy, WorkerService> retryPolicies;

  public WorkerServiceReconciler(BrokerSnapshot broker, OperatorSettings settings, Clock clock, KubeEvents events,
      OperatorMetrics metrics) {
    this.settings = settings;
    String brokerCa = BrokerCa.read(settings);
    WorkerUserSync userSync = new WorkerUserSync(broker);
    KedaAutoscaling autoscaling = new KedaAutoscaling(new KedaDetector(settings.resync(), clock), userSync, settings);
    this.deadLetters = new DeadLetterAlerts(events, metrics);
    this.admission = new ServiceAdmission(settings, id -> retryPolicies.get(id));
    this.declarations = new BrokerDeclarations(new ServiceBrokerObjects(new TopologySync(broker)), userSync,
        autoscaling, deadLetters, settings.userPrefix());
    this.dependents = new WorkerDependents(settings, brokerCa, autoscaling);
    this.users = new BrokerUsers(userSync, autoscaling);
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
    CacheIndexes.workerServices(context.getPrimaryCache(), settings.tenancy(), true);
    // A WorkerService that appears, changes (its spec.access) or goes reconciles those claiming the same name and those
    // subscribing to the events of the service it provides or provided.
    return List.of(retryPolicies, ClaimPeers.eventSource(WorkerService.class, context, CacheIndexes.SERVICE_CLAIM,
        CacheIndexes::serviceNames, (provider, cache) ->
            CacheIndexes.lookUp(cache, CacheIndexes.SUBSCRIBES_TO, CacheIndexes.serviceNames(provider))));
  }

  @Override
  public UpdateControl<WorkerService> reconcile(WorkerService ws, Context<WorkerService> context) {
    ResourceID id = ResourceID.fromResource(ws);
    Admission decision = admission.admit(ws, context);
    if (decision.refused()) {
      passes.forget(id);
      return refused(ws, decision, context);
    }
    ServiceRequest request = decision.request();
    // A reconciliation that brings nothing new for the broker (a Deployment's replicas became available, the Secret's
    // informer caught up) reuses the last pass instead of comparing the broker again.
    Optional<ServicePass> last = passes.reusable(id, request.generation(), request.brokerPlan());
    Instant startedAt = passes.now();
    passes.forget(id); // remembered again only if this pass completes
    try {
      SyncReport report = last.isPresent() ? last.get().report() : declarations.declare(request);
      WorkerDependents.Applied applied = dependents.apply(request, context);
      List<String> changes = new ArrayList<>(last.isPresent() ? List.of() : report.actions());
      ConditionState autoscaling = users.ensure(request, applied, last, context, changes);
      deadLetters.observe(ws, request.topology(), report);
      logChanges(request, changes);
      backoff.reset(id);
      remember(request, new ServicePass(report, applied.passwordDigest()), startedAt);
      return rescheduledWhileDraining(report,
          status.write(ws, ServiceFindings.applied(request, report, applied, autoscaling, context)));
    } catch (BrokerException e) {
      Duration delay = backoff.after(e, id, "WorkerService");
      return status.write(ws, ServiceFindings.unapplied(ws, context,
          ConditionState.failed(e.failure().reason(), e.getMessage()))).rescheduleAfter(delay);
    }
  }

  /**
   * Nothing is declared for a spec that cannot be applied, but what a provider no longer grants is withdrawn all the
   * same (docs/design.md#tenancy): leaving a spec broken must not keep a withdrawn subscription bound.
   */
  private UpdateControl<WorkerService> refused(WorkerService ws, Admission decision, Context<WorkerService> context) {
    UpdateControl<WorkerService> written = status.write(ws, ServiceFindings.unapplied(ws, context, decision.refusal()));
    ResourceID id = ResourceID.fromResource(ws);
    try {
      declarations.withdrawRefused(ws, decision.claims(), admission.grants(ws, decision.claims()));
      return written;
    } catch (BrokerException e) {
      return written.rescheduleAfter(backoff.after(e, id, "WorkerService"));
    }
  }

  @Override
  public ErrorStatusUpdateControl<WorkerService> updateErrorStatus(WorkerService ws, Context<WorkerService> context,
      Exception e) {
    return status.failed(ws, e);
  }

  /**
   * Removes the dependents (Deployment, PodDisruptionBudget, Secrets, KEDA objects), then the broker users and topology of every service name this resource held.
   * If the broker cannot be reached the finalizer stays and cleanup is retried with backoff: dropping it would
   * leave a user with live credentials and queues nobody owns. (To give up, remove the finalizer by hand.)
   */
  @Override
  public DeleteControl cleanup(WorkerService ws, Context<WorkerService> context) {
    dependents.delete(ws, context);
    ResourceID id = ResourceID.fromResource(ws);
    passes.forget(id);
    status.forget(ws);
    try {
      boolean complete = declarations.removeAll(ws, admission.claims(context));
      backoff.reset(id);
      // Empty quorum queues are deleted a few seconds after they were unbound: the finalizer waits for that.
      return complete ? DeleteControl.defaultDelete()
          : DeleteControl.noFinalizerRemoval().rescheduleAfter(min(DRAIN_CHECK, settings.resync()));
    } catch (BrokerException e) {
      return DeleteControl.noFinalizerRemoval()
          .rescheduleAfter(backoff.after(e, id, "keeping the finalizer of WorkerService"));
    }
  }

  private static void logChanges(ServiceRequest request, List<String> changes) {
    if (!changes.isEmpty()) {
      LOG.info("WorkerService {} (service '{}'): {}", request.id(), request.service(), String.join("; ", changes));
    }
  }

  /** A pass that leaves queues draining is not reused: the next one must look whether they are empty yet. */
  private void remember(ServiceRequest request, ServicePass pass, Instant startedAt) {
    if (pass.report().draining().isEmpty()) {
      passes.remember(request.id(), request.generation(), request.brokerPlan(), pass, startedAt);
    }
  }

  /** Old retry tiers empty as their TTLs expire: look again soon rather than at the next resync. */
  private UpdateControl<WorkerService> rescheduledWhileDraining(SyncReport report,
      UpdateControl<WorkerService> written) {
    return report.draining().isEmpty() ? written : written.rescheduleAfter(min(DRAIN_CHECK, settings.resync()));
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
