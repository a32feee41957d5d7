package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.DeletionPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.api.v1alpha1.Workflow;
import dev.baton.api.validation.Validated;
import dev.baton.contract.Names;
import dev.baton.contract.topology.BindingSpec;
import dev.baton.contract.topology.OrchestratorTopology;
import dev.baton.contract.topology.TopologyPlanner;
import dev.baton.contract.topology.WorkflowModel;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.broker.BrokerException;
import dev.baton.operator.broker.BrokerSnapshot;
import dev.baton.operator.model.CommandGrants;
import dev.baton.operator.model.NameClaims;
import dev.baton.operator.model.ServiceDirectory;
import dev.baton.operator.model.WorkerServiceTranslator;
import dev.baton.operator.model.WorkflowDirectory;
import dev.baton.operator.model.WorkflowTranslator;
import dev.baton.operator.monitoring.KubeEvents;
import dev.baton.operator.runtime.InstanceCounts;
import dev.baton.operator.runtime.InstanceCountsEventSource;
import dev.baton.operator.runtime.RuntimeApi;
import dev.baton.operator.runtime.RuntimeCounts;
import dev.baton.operator.runtime.RuntimeRoutes;
import dev.baton.operator.runtime.UnfinishedInstances;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.Reason;
import dev.baton.operator.status.WorkflowFindings;
import dev.baton.operator.status.WorkflowStatusWriter;
import dev.baton.operator.topology.RemovalReport;
import dev.baton.operator.topology.SyncReport;
import dev.baton.operator.topology.TopologySync;
import dev.baton.operator.topology.WorkflowBrokerObjects;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Workflow becomes its orchestrator queue {@code q.orchestrator.W}, the parking queue {@code q.dlx.orchestrator.W}
 * and the bindings from each step's service events (step and compensation actions, every result) — once every
 * step's service and commands exist. Until then it is Ready=False with a reason naming the missing reference, and
 * becomes ready by itself when the WorkerService appears. A step's service provided in another namespace must grant
 * this one ({@link CommandGrants}): until it does the Workflow is Forbidden, and a grant withdrawn unbinds it.
 *
 * <p>With a runtime URL configured, its status also shows the live instance counts the runtime reports
 * ({@link InstanceCountsEventSource}); a reconciliation that only brings new counts reuses the last broker pass
 * ({@link FreshPasses}) instead of listing the broker again.
 */
@ControllerConfiguration(name = WorkflowReconciler.NAME)
public class WorkflowReconciler implements Reconciler<Workflow>, Cleaner<Workflow> {

  public static final String NAME = "workflow";
  /** How often a deleted Workflow waiting for its instances is looked at besides the runtime's answers. */
  static final Duration WAIT_CHECK = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(WorkflowReconciler.class);

  private final OperatorSettings settings;
  private final WorkflowBrokerObjects topology;
  private final WorkflowStatusWriter status;
  private final Backoff backoff;
  private final FreshPasses<WorkflowFindings> passes;
  private volatile InformerEventSource<WorkerService, Workflow> workerServices;
  private volatile InstanceCountsEventSource counts;
  /** The second informer over Workflows whose events reconcile a Workflow's parents and peers. */
  private volatile InformerEventSource<Workflow, Workflow> peers;

  public WorkflowReconciler(BrokerSnapshot broker, OperatorSettings settings, Clock clock, KubeEvents events) {
    this.settings = settings;
    this.topology = new WorkflowBrokerObjects(new TopologySync(broker));
    this.status = new WorkflowStatusWriter(clock, events, settings.statusInterval());
    this.backoff = new Backoff(settings.resync());
    this.passes = new FreshPasses<>(settings.resync(), clock);
  }

  @Override
  public List<EventSource<?, Workflow>> prepareEventSources(EventSourceContext<Workflow> context) {
    // A WorkerService that appears, changes or goes reconciles the Workflows that use the service name it claims or
    // held (a Workflow waiting for it, refused by its spec.access, or bound to it).
    workerServices = new InformerEventSource<>(InformerEventSourceConfiguration.from(WorkerService.class, Workflow.class)
        .withName("worker-services")
        .withOnUpdateFilter((next, previous) ->
            !Objects.equals(next.getMetadata().getGeneration(), previous.getMetadata().getGeneration()))
        .withSecondaryToPrimaryMapper((WorkerService ws) -> CacheIndexes.lookUp(context.getPrimaryCache(),
                CacheIndexes.USES_SERVICE, CacheIndexes.serviceNames(ws))
            .map(ResourceID::fromResource)
            .collect(Collectors.toSet()))
        .build(), context);
    CacheIndexes.workerServices(workerServices, settings.tenancy(), false);
    CacheIndexes.workflows(context.getPrimaryCache());
    // A Workflow that appears, changes or goes also reconciles those of its namespace that start it as a child, and
    // those refused as invalid or for a missing Workflow (a cycle through it, or one waiting for it to exist).
    InformerEventSource<Workflow, Workflow> claims = ClaimPeers.eventSource(Workflow.class, context,
        CacheIndexes.WORKFLOW_CLAIM, wf -> WorkflowTranslator.claimedName(wf).stream().toList(),
        (changed, cache) -> Stream.concat(
            cache.byIndex(CacheIndexes.STARTS,
                CacheIndexes.key(changed.getMetadata().getNamespace(), changed.getMetadata().getName())).stream(),
            cache.byIndex(CacheIndexes.WAITS_FOR_PEERS, changed.getMetadata().getNamespace()).stream()));
    peers = claims;
    if (settings.runtimeUrl() == null) {
      return List.of(workerServices, claims);
    }
    // One request for all Workflows per interval; only those whose counts changed are reconciled.
    RuntimeApi runtime = new RuntimeApi(settings.runtimeUrl(),
        RuntimeApi.tokenOf(settings.runtimeToken(), settings.runtimeTokenPath()));
    counts = new InstanceCountsEventSource(new RuntimeCounts(runtime), new RuntimeRoutes(runtime),
        settings.countsInterval(), context.getPrimaryCache());
    return List.of(workerServices, claims, counts);
  }

  @Override
  public UpdateControl<Workflow> reconcile(Workflow workflow, Context<Workflow> context) {
    ResourceID id = ResourceID.fromResource(workflow);
    InstanceCounts instances = counts == null ? null : counts.countsOf(workflow).orElse(null);
    String name = workflow.getMetadata().getName();
    NameClaims<Workflow> claims = claims(context);
    if (!claims.holds(workflow, name)) {
      passes.forget(id);
      String holder = claims.holder(name).map(NameClaims::describe).orElse("another Workflow");
      return status.write(workflow, new WorkflowFindings(ConditionState.failed(Reason.CONFLICT, "queue "
          + Names.orchestratorQueue(name) + " already belongs to Workflow " + holder + ", which is older; nothing is "
          + "declared for this one: rename it, or delete one of the two"), null, null, instances));
    }
    ServiceDirectory services = ServiceDirectory.of(WorkerServiceTranslator.claims(
        CacheIndexes.claimants(workerServices, CacheIndexes.SERVICE_CLAIM), settings.tenancy()));
    CommandGrants grants = CommandGrants.of(workflow.getMetadata().getNamespace(), services, settings.tenancy());
    Validated<WorkflowModel> model = WorkflowTranslator.fromCrd(workflow, services,
        WorkflowDirectory.lookingUp((namespace, other) -> {
          ResourceID peer = new ResourceID(other, namespace);
          return newest(context.getPrimaryCache().get(peer), peers.get(peer));
        }));
    // A service it may not command refuses the Workflow before anything else: its commands are not told.
    Optional<ConditionState> refusal = grants.refusal(WorkflowTranslator.referencedServices(workflow))
        .map(why -> ConditionState.failed(Reason.FORBIDDEN, why + "; nothing is declared for this Workflow until then"))
        .or(() -> model.isValid() ? Optional.empty()
            : Optional.of(ConditionState.failed(Reason.of(model), model.message())));
    if (refusal.isPresent()) {
      passes.forget(id);
      return unapplied(workflow, grants, refusal.get(), instances);
    }
    // Older revisions with unfinished instances keep their result keys bound (docs/design.md#runtime-semantics);
    // until the runtime has told which, nothing is unbound. Without a runtime URL only the current spec is bound.
    Optional<Set<BindingSpec>> running = counts == null ? Optional.of(Set.of()) : counts.routesOf(workflow);
    OrchestratorTopology plan = withRoutes(TopologyPlanner.plan(model.value()), running.orElse(Set.of()), grants);
    boolean unbindUnplanned = running.isPresent();
    Long generation = workflow.getMetadata().getGeneration();
    Optional<WorkflowFindings> fresh = passes.reusable(id, generation, plan);
    if (fresh.isPresent()) {
      return status.write(workflow, fresh.get().withCounts(instances));
    }
    Instant startedAt = passes.now();
    passes.forget(id); // remembered again only if this pass completes
    try {
      List<String> actions = new ArrayList<>(topology.withdraw(name, grants::refusesEventsOf));
      SyncReport report = topology.declare(plan, unbindUnplanned);
      actions.addAll(report.actions());
      if (!actions.isEmpty()) {
        LOG.info("Workflow {}: {}", id, String.join("; ", actions));
      }
      backoff.reset(id);
      WorkflowFindings findings = new WorkflowFindings(verdict(plan, report), plan, report);
      if (unbindUnplanned) { // a pass that kept bindings it may not need is not one to reuse
        passes.remember(id, generation, plan, findings, startedAt);
      }
      return status.write(workflow, findings.withCounts(instances));
    } catch (BrokerException e) {
      Duration delay = backoff.after(e, id, "Workflow");
      return status.write(workflow,
              new WorkflowFindings(ConditionState.failed(e.failure().reason(), e.getMessage()), plan, null, instances))
          .rescheduleAfter(delay);
    }
  }

  /**
   * A Workflow that is refused, or whose spec cannot be applied: nothing is declared for it, and no binding stays that
   * a provider no longer grants (docs/design.md#tenancy) — leaving a spec broken must not keep a withdrawn grant.
   */
  private UpdateControl<Workflow> unapplied(Workflow workflow, CommandGrants grants, ConditionState refusal,
      InstanceCounts instances) {
    ResourceID id = ResourceID.fromResource(workflow);
    UpdateControl<Workflow> written = status.write(workflow, new WorkflowFindings(refusal, null, null, instances));
    try {
      List<String> unbound = topology.withdraw(workflow.getMetadata().getName(), grants::refusesEventsOf);
      if (!unbound.isEmpty()) {
        LOG.info("Workflow {}: no longer granted (docs/design.md#tenancy): {}", id, String.join("; ", unbound));
      }
      return written;
    } catch (BrokerException e) {
      return written.rescheduleAfter(backoff.after(e, id, "Workflow"));
    }
  }

  @Override
  public ErrorStatusUpdateControl<Workflow> updateErrorStatus(Workflow workflow, Context<Workflow> context,
      Exception e) {
    return status.failed(workflow, e);
  }

  /**
   * Removes the orchestrator queues per deletionPolicy once no instance of the Workflow is unfinished; keeps the
   * finalizer while the broker cannot be reached.
   *
   * <p>Deleting a Workflow never strands its running instances (docs/design.md#runtime-semantics): while the runtime
   * lists unfinished instances of it, or cannot be read, its finalizer, queues and bindings (the current spec's and
   * the older revisions') stay as they are, Ready says why ({@link Reason#WAITING_FOR_INSTANCES},
   * {@link Reason#RUNTIME_UNAVAILABLE}) and it is looked at again every {@link #WAIT_CHECK} and whenever the runtime's
   * answer changes. {@code baton.dev/on-delete: fail-running} makes the runtime fail them at once. Without a runtime
   * URL nothing is known of instances, and the queues go at once.
   */
  @Override
  public DeleteControl cleanup(Workflow workflow, Context<Workflow> context) {
    String name = workflow.getMetadata().getName();
    ResourceID id = ResourceID.fromResource(workflow);
    passes.forget(id);
    if (!claims(context).isFreeFor(workflow, name)) {
      status.forget(workflow);
      return DeleteControl.defaultDelete();
    }
    if (counts != null) {
      UnfinishedInstances unfinished = counts.unfinishedOf(workflow);
      if (unfinished.state() != UnfinishedInstances.State.NONE) {
        // Until the runtime answers after the deletion (one poll), the status stays as it is.
        waitingFor(unfinished).ifPresent(ready ->
            status.writeWhileDeleting(workflow, ready, counts.countsOf(workflow).orElse(null), context));
        return DeleteControl.noFinalizerRemoval().rescheduleAfter(WAIT_CHECK);
      }
    }
    status.forget(workflow);
    boolean retain = workflow.getSpec() == null || workflow.getSpec().getDeletionPolicy() != DeletionPolicy.Delete;
    try {
      RemovalReport removed = topology.remove(name, retain);
      LOG.info("Workflow {} deleted: {}", id, removed.describe());
      backoff.reset(id);
      // Empty quorum queues are deleted a few seconds after they were unbound: the finalizer waits for that.
      return removed.complete() ? DeleteControl.defaultDelete()
          : DeleteControl.noFinalizerRemoval().rescheduleAfter(Duration.ofSeconds(5));
    } catch (BrokerException e) {
      return DeleteControl.noFinalizerRemoval().rescheduleAfter(backoff.after(e, id, "keeping the finalizer of Workflow"));
    }
  }

  /** What Ready says while a deleted Workflow keeps its queues and finalizer; empty while the runtime is asked. */
  private static Optional<ConditionState> waitingFor(UnfinishedInstances unfinished) {
    String stays = "its orchestrator queue and bindings stay until then (to fail them at once instead, annotate it "
        + "baton.dev/on-delete=fail-running)";
    return switch (unfinished.state()) {
      case UNREADABLE -> Optional.of(ConditionState.failed(Reason.RUNTIME_UNAVAILABLE, "being deleted, but the "
          + "runtime cannot tell whether instances of it are unfinished (" + unfinished.problem() + "): waiting for it "
          + "to answer; " + stays));
      case SOME -> Optional.of(ConditionState.failed(Reason.WAITING_FOR_INSTANCES, "being deleted: waiting for "
          + (unfinished.running() > 0 ? unfinished.running() + " instance(s)" : "its unfinished instances")
          + " to end; " + stays));
      case ASKING, NONE -> Optional.empty();
    };
  }

  /**
   * The plan with the bindings the older revisions' unfinished instances need (the runtime's routes) added, but for
   * those from services the namespace may no longer command.
   */
  private static OrchestratorTopology withRoutes(OrchestratorTopology plan, Set<BindingSpec> routes,
      CommandGrants grants) {
    if (routes.isEmpty()) {
      return plan;
    }
    Set<BindingSpec> bindings = new LinkedHashSet<>(plan.bindings());
    routes.stream().filter(b -> !grants.refusesEventsOf(b.exchange())).forEach(bindings::add);
    return new OrchestratorTopology(plan.workflow(), plan.queue(), plan.deadLetterQueue(), List.copyOf(bindings));
  }

  private static ConditionState verdict(OrchestratorTopology plan, SyncReport report) {
    return ConditionState.of(report, WorkflowBrokerObjects.SPEC_FIELDS, ConditionState.ok(Reason.READY, "queue "
        + plan.queue().name() + " receives the results of every step (" + plan.bindings().size() + " bindings)"));
  }

  /**
   * A Workflow as the newer of the two informers has it. A child's change reaches its parent through the peers'
   * informer, whose cache has the change when the event comes; the primary cache may not have it yet (two watches,
   * each at its own pace), and a parent reconciled with the child's old spec would miss a cycle until the resync.
   */
  static Optional<Workflow> newest(Optional<Workflow> primary, Optional<Workflow> peer) {
    if (primary.isEmpty() || peer.isEmpty()) {
      return primary.or(() -> peer);
    }
    return version(peer.get()) > version(primary.get()) ? peer : primary;
  }

  /** A resourceVersion as a number where it is one (etcd's are); otherwise the primary cache's copy stands. */
  private static long version(Workflow w) {
    try {
      return Long.parseLong(w.getMetadata().getResourceVersion());
    } catch (NumberFormatException | NullPointerException e) {
      return Long.MIN_VALUE;
    }
  }

  private static NameClaims<Workflow> claims(Context<Workflow> context) {
    return WorkflowTranslator.claims(CacheIndexes.claimants(context.getPrimaryCache(), CacheIndexes.WORKFLOW_CLAIM));
  }
}
