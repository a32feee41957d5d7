package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.DeletionPolicy;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.Names;
import dev.baton.operator.autoscaling.KedaAutoscaling;
import dev.baton.operator.model.NameClaims;
import dev.baton.operator.model.SubscriptionGrants;
import dev.baton.operator.model.WorkerServiceTranslator;
import dev.baton.operator.monitoring.DeadLetterAlerts;
import dev.baton.operator.topology.RemovalReport;
import dev.baton.operator.topology.ServiceBrokerObjects;
import dev.baton.operator.topology.SyncReport;
import dev.baton.operator.topology.WorkerUserSync;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a WorkerService has on the broker under a service name: exchanges, queues, retry tiers, dead-letter queues and
 * bindings (docs/design.md#broker-names), its broker users, and its dead-letter gauges. Declared on every pass that
 * compares the broker; given up, per deletionPolicy, when spec.service changes or the WorkerService is deleted. A
 * name another WorkerService has claimed meanwhile is never given up: its objects are that one's now. What a provider
 * no longer grants is withdrawn on every pass, also of a spec that cannot be applied.
 */
final class BrokerDeclarations {

  // The reconciler's logger: one logger name for all a WorkerService's reconciliation did.
  private static final Logger LOG = LoggerFactory.getLogger(WorkerServiceReconciler.class);

  private final ServiceBrokerObjects topology;
  private final WorkerUserSync users;
  private final KedaAutoscaling autoscaling;
  private final DeadLetterAlerts deadLetters;
  private final String userPrefix;

  BrokerDeclarations(ServiceBrokerObjects topology, WorkerUserSync users, KedaAutoscaling autoscaling,
      DeadLetterAlerts deadLetters, String userPrefix) {
    this.topology = topology;
    this.users = users;
    this.autoscaling = autoscaling;
    this.deadLetters = deadLetters;
    this.userPrefix = userPrefix;
  }

  /**
   * Declares the request's topology, after retiring the service name a rename left behind and withdrawing what the
   * providers no longer grant.
   */
  SyncReport declare(ServiceRequest request) {
    retireRenamedService(request);
    for (String subscription : request.subscriptions().withdrawn()) {
      RemovalReport removed = topology.withdraw(request.service(), subscription);
      if (!removed.deleted().isEmpty()) {
        LOG.info("WorkerService {}: subscription '{}' is not granted (docs/design.md#tenancy): {}", request.id(),
            subscription, removed.describe());
      }
    }
    unbindRefused(request.resource(), request.service(), request.grants());
    return topology.declare(request.topology());
  }

  /**
   * For a WorkerService whose spec cannot be applied now (invalid, say): nothing is declared for it, but no binding
   * stays that brings it events a provider no longer grants its namespace (docs/design.md#tenancy). Only the holder of
   * the service name touches its queues.
   */
  void withdrawRefused(WorkerService ws, NameClaims<WorkerService> claims, SubscriptionGrants grants) {
    WorkerServiceTranslator.claimedServiceName(ws).filter(service -> claims.holds(ws, service))
        .ifPresent(service -> unbindRefused(ws, service, grants));
  }

  private void unbindRefused(WorkerService ws, String service, SubscriptionGrants grants) {
    List<String> unbound = topology.unbindFrom(service, grants::refusesEventsOf);
    if (!unbound.isEmpty()) {
      LOG.info("WorkerService {}: no longer granted (docs/design.md#tenancy): {}", ResourceID.fromResource(ws),
          String.join("; ", unbound));
    }
  }

  /**
   * Removes the users, gauges and topology of every service name the deleted WorkerService held.
   *
   * @return false while some of it is still on the broker (empty quorum queues are deleted a few seconds after they
   *     were unbound)
   */
  boolean removeAll(WorkerService ws, NameClaims<WorkerService> claims) {
    boolean retain = ws.getSpec() == null || ws.getSpec().getDeletionPolicy() != DeletionPolicy.Delete;
    boolean complete = true;
    for (String service : heldServiceNames(ws, claims)) {
      if (KedaAutoscaling.concerns(ws)) {
        autoscaling.removeUser(service);
      }
      deadLetters.forget(service);
      users.remove(Names.workerUser(userPrefix, service));
      RemovalReport removed = topology.remove(service, retain);
      complete &= removed.complete();
      LOG.info("WorkerService {} deleted: removed user {}; {}", ResourceID.fromResource(ws),
          Names.workerUser(userPrefix, service), removed.describe());
    }
    return complete;
  }

  /**
   * When spec.service changed, the old service's objects and users go (per deletionPolicy), unless another took it.
   * The old name is the one status.service still shows: a pass that failed after the rename did not overwrite it.
   */
  private void retireRenamedService(ServiceRequest request) {
    WorkerService ws = request.resource();
    String previous = ws.getStatus() == null ? null : ws.getStatus().getService();
    if (previous != null && !previous.equals(request.service()) && Names.isValidToken(previous)
        && request.claims().isFreeFor(ws, previous)) {
      boolean retain = ws.getSpec().getDeletionPolicy() != DeletionPolicy.Delete;
      users.remove(Names.workerUser(userPrefix, previous));
      autoscaling.removeUser(previous);
      deadLetters.forget(previous);
      RemovalReport removed = topology.remove(previous, retain);
      LOG.info("WorkerService {} renamed its service '{}' to '{}': {}", request.id(), previous, request.service(),
          removed.describe());
    }
  }

  /** The names the spec claims and the status shows, that are valid, not reserved, and not someone else's now. */
  private static Set<String> heldServiceNames(WorkerService ws, NameClaims<WorkerService> claims) {
    Set<String> names = new LinkedHashSet<>();
    WorkerServiceTranslator.claimedServiceName(ws).ifPresent(names::add);
    if (ws.getStatus() != null && ws.getStatus().getService() != null) {
      names.add(ws.getStatus().getService());
    }
    return names.stream().filter(Names::isValidToken).filter(n -> !Names.RESERVED_SERVICE_NAMES.contains(n))
        .filter(n -> claims.isFreeFor(ws, n)).collect(Collectors.toCollection(LinkedHashSet::new));
  }
}
