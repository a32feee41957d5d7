package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.topology.ServiceTopology;
import io.javaoperatorsdk.operator.api.reconciler.Context;

/**
 * What {@link KedaAutoscaling} decided for one pass and the KEDA dependents and their conditions act on; handed over
 * through JOSDK's per-reconciliation context, because JOSDK instantiates managed dependents and conditions itself.
 *
 * @param kedaServed whether the cluster serves KEDA's API (the dependents' activation condition: without it JOSDK
 *     registers no informer on keda.sh kinds)
 * @param wanted whether the KEDA objects should exist (the reconcile precondition: spec.autoscaling set and no one
 *     else's object of those names in the way; the Deployment is their parent in the workflow); when false JOSDK deletes ours
 * @param conflict why someone else's Secret, TriggerAuthentication or ScaledObject stands in the way, or null
 * @param username the autoscaler's read-only broker user
 * @param managementUrl the management API KEDA reads queue statistics from
 * @param vhost the vhost of the queues
 * @param topology the service's queues (one trigger each), null on cleanup
 */
public record AutoscalerPlan(boolean kedaServed, boolean wanted, String conflict, String username, String managementUrl, String vhost,
    ServiceTopology topology) {

  public void handTo(Context<WorkerService> context) {
    context.managedWorkflowAndDependentResourceContext().put(AutoscalerPlan.class, this);
  }

  static AutoscalerPlan from(Context<WorkerService> context) {
    return context.managedWorkflowAndDependentResourceContext().getMandatory(AutoscalerPlan.class,
        AutoscalerPlan.class);
  }
}
