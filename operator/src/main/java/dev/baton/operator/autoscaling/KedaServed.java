package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * Activation condition of the KEDA dependents: the cluster serves {@value KedaDetector#GROUP_VERSION} (API discovery,
 * {@link KedaDetector}). JOSDK registers their informers only once it holds, so an operator in a cluster without
 * KEDA never watches a kind that does not exist; while it does not hold, JOSDK neither creates nor deletes them.
 * (JOSDK's own CRDPresentActivationCondition reads the CRD, which needs a grant on CRDs; discovery needs none.)
 */
public class KedaServed implements Condition<Object, WorkerService> {

  @Override
  public boolean isMet(DependentResource<Object, WorkerService> dependent, WorkerService ws,
      Context<WorkerService> context) {
    return AutoscalerPlan.from(context).kedaServed();
  }
}
