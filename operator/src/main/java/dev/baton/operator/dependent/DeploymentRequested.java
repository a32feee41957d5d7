package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * The Deployment exists only while the spec has a deployment section; removing the section deletes it. (A reconcile
 * precondition, not an activation condition: JOSDK deletes a dependent whose precondition fails, but leaves one whose
 * activation condition fails in place.)
 */
public class DeploymentRequested implements Condition<Deployment, WorkerService> {

  @Override
  public boolean isMet(DependentResource<Deployment, WorkerService> dependent, WorkerService ws,
      Context<WorkerService> context) {
    return isRequested(ws);
  }

  public static boolean isRequested(WorkerService ws) {
    return ws.getSpec() != null && ws.getSpec().getDeployment() != null;
  }
}
