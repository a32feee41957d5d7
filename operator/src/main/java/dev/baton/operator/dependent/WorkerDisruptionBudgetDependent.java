package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.DisruptionBudgetSettings;
import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.DependentResource;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import io.javaoperatorsdk.operator.processing.dependent.workflow.Condition;

/**
 * The PodDisruptionBudget of the worker pods, named as their Deployment and selecting them as it does, with the one
 * bound spec.deployment.podDisruptionBudget sets. It exists only while the spec asks for it ({@link Requested}).
 */
@KubernetesDependent(informer = @Informer(labelSelector = WorkerResources.MANAGED_SELECTOR))
public class WorkerDisruptionBudgetDependent extends WorkerOwnedDependent<PodDisruptionBudget> {

  public WorkerDisruptionBudgetDependent() {
    super(PodDisruptionBudget.class);
  }

  @Override
  protected String resourceName(WorkerService ws) {
    return WorkerResources.deploymentName(ws);
  }

  @Override
  protected PodDisruptionBudget desired(WorkerService ws, Context<WorkerService> context) {
    DisruptionBudgetSettings budget = ws.getSpec().getDeployment().getPodDisruptionBudget();
    return new PodDisruptionBudgetBuilder()
        .withNewMetadata()
        .withName(resourceName(ws))
        .withNamespace(ws.getMetadata().getNamespace())
        .withLabels(WorkerResources.labels(ws))
        .endMetadata()
        .withNewSpec()
        .withNewSelector().withMatchLabels(WorkerResources.selector(ws)).endSelector()
        .withMinAvailable(budget.getMinAvailable())
        .withMaxUnavailable(budget.getMaxUnavailable())
        .endSpec()
        .build();
  }

  /**
   * A reconcile precondition, as for the Deployment ({@link DeploymentRequested}): JOSDK deletes the budget when the
   * spec no longer asks for it, or no longer asks for a Deployment.
   */
  public static class Requested implements Condition<PodDisruptionBudget, WorkerService> {

    @Override
    public boolean isMet(DependentResource<PodDisruptionBudget, WorkerService> dependent, WorkerService ws,
        Context<WorkerService> context) {
      return isRequested(ws);
    }
  }

  public static boolean isRequested(WorkerService ws) {
    return DeploymentRequested.isRequested(ws) && ws.getSpec().getDeployment().getPodDisruptionBudget() != null;
  }
}
