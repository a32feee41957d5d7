package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * Reconcile precondition of the autoscaler's Secret, which the TriggerAuthentication and the ScaledObject depend on:
 * spec.autoscaling is set and nothing of someone else's has one of the three names. When it fails, JOSDK deletes the three
 * (those that are the WorkerService's: {@link KedaDependent} deletes nothing it does not own).
 */
public class AutoscalingWanted implements Condition<Object, WorkerService> {

  @Override
  public boolean isMet(DependentResource<Object, WorkerService> dependent, WorkerService ws,
      Context<WorkerService> context) {
    return AutoscalerPlan.from(context).wanted();
  }
}
