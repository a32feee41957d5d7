package dev.baton.operator.reconciler;

import dev.baton.api.v1alpha1.RetryPolicy;
import dev.baton.operator.model.RetryPolicyTranslator;
import dev.baton.operator.monitoring.KubeEvents;
import dev.baton.operator.status.RetryPolicyStatusWriter;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.ErrorStatusUpdateControl;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;

/**
 * Validates a RetryPolicy and publishes its normalised staircase. It declares nothing itself: the WorkerServices that
 * use it are reconciled again when it changes (see {@link WorkerServiceReconciler}).
 */
@ControllerConfiguration(name = RetryPolicyReconciler.NAME)
public class RetryPolicyReconciler implements Reconciler<RetryPolicy> {

  public static final String NAME = "retrypolicy";

  private final RetryPolicyStatusWriter status;

  public RetryPolicyReconciler(Clock clock, KubeEvents events) {
    this.status = new RetryPolicyStatusWriter(clock, events);
  }

  @Override
  public UpdateControl<RetryPolicy> reconcile(RetryPolicy policy, Context<RetryPolicy> context) {
    return status.write(policy, RetryPolicyTranslator.fromCrd(policy));
  }

  @Override
  public ErrorStatusUpdateControl<RetryPolicy> updateErrorStatus(RetryPolicy policy, Context<RetryPolicy> context,
      Exception e) {
    return status.failed(policy, e);
  }
}
