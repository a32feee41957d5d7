package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.operator.dependent.CredentialsSecretDependent;
import dev.baton.operator.dependent.DeploymentRequested;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.Reason;
import dev.baton.operator.status.WorkerServiceFindings;
import dev.baton.operator.status.WorkerServiceStatusWriter;
import dev.baton.operator.topology.ServiceBrokerObjects;
import dev.baton.operator.topology.SyncReport;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Optional;

/** The findings a WorkerService's status is written from ({@link WorkerServiceStatusWriter}), as a pass ends. */
final class ServiceFindings {

  private ServiceFindings() {}

  /** Findings of a pass that applied the spec: the topology as the broker holds it, and what the dependents left. */
  static WorkerServiceFindings applied(ServiceRequest request, SyncReport report, WorkerDependents.Applied dependents,
      ConditionState autoscaling, Context<WorkerService> context) {
    ServiceTopology plan = request.topology();
    return new WorkerServiceFindings(request.service(), topologyVerdict(request, report), plan, report,
        request.username(), dependents.credentials().getMetadata().getName(),
        DeploymentRequested.isRequested(request.resource()), deployment(context), autoscaling);
  }

  /**
   * Findings of a pass that did not (fully) apply the spec: what exists is reported, nothing is claimed ready. The
   * service name stays the one the broker objects carry (status.service): after a rename, it is what tells a later
   * pass — or the deletion — which user and queues of the old name to retire, so a failed pass must not overwrite it.
   */
  static WorkerServiceFindings unapplied(WorkerService ws, Context<WorkerService> context, ConditionState verdict) {
    Optional<Secret> secret = CredentialsSecretDependent.current(ws, context);
    String username = ws.getStatus() == null ? null : ws.getStatus().getUsername();
    String inUse = ws.getStatus() == null ? null : ws.getStatus().getService();
    return new WorkerServiceFindings(inUse, verdict, null, null, secret.isPresent() ? username : null,
        secret.map(s -> s.getMetadata().getName()).orElse(null), DeploymentRequested.isRequested(ws),
        deployment(context), null);
  }

  /**
   * What the broker holds of the plan; a subscription that is not granted makes it Forbidden (and so Ready), while
   * what is granted is in place and works (docs/design.md#tenancy).
   */
  private static ConditionState topologyVerdict(ServiceRequest request, SyncReport report) {
    ServiceTopology plan = request.topology();
    String inPlace = plan.exchanges().size() + " exchanges, " + plan.queues().size() + " queues, "
        + plan.bindings().size() + " bindings and user permissions are in place";
    ConditionState declared = ConditionState.of(report, ServiceBrokerObjects.SPEC_FIELDS,
        ConditionState.ok(Reason.DECLARED, inPlace));
    if (request.subscriptions().all()) {
      return declared;
    }
    return ConditionState.failed(Reason.FORBIDDEN, request.subscriptions().message() + ". Nothing is declared for "
        + (request.subscriptions().refused().size() == 1 ? "it" : "them") + "; the commands and granted "
        + "subscriptions work: " + (declared.ok() ? inPlace : declared.message()));
  }

  private static Deployment deployment(Context<WorkerService> context) {
    return context.getSecondaryResource(Deployment.class).orElse(null);
  }
}
