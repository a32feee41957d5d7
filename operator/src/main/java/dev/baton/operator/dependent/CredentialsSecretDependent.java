package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;

/**
 * The Secret {@code <name>-broker-credentials} with the worker's broker username, password and URI. The password is
 * drawn once and kept: a Secret that exists keeps its password (the broker user follows it); a Secret deleted
 * behind the operator's back is recreated with a new one.
 */
@KubernetesDependent(informer = @Informer(labelSelector = WorkerResources.MANAGED_SELECTOR))
public class CredentialsSecretDependent extends WorkerOwnedDependent<Secret> {

  public CredentialsSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected String resourceName(WorkerService ws) {
    return WorkerResources.secretName(ws);
  }

  @Override
  protected Secret desired(WorkerService ws, Context<WorkerService> context) {
    WorkerPlan plan = WorkerPlan.from(context);
    String password = getSecondaryResource(ws, context).flatMap(Credentials::password)
        .orElseGet(Credentials::newPassword);
    return new SecretBuilder()
        .withNewMetadata()
        .withName(resourceName(ws))
        .withNamespace(ws.getMetadata().getNamespace())
        .withLabels(WorkerResources.labels(ws))
        .endMetadata()
        .withType("Opaque")
        .withData(Credentials.data(plan, password))
        .build();
  }
}
