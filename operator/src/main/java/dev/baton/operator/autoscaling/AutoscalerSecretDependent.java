package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.WorkerOwnedDependent;
import dev.baton.operator.dependent.WorkerResources;
import io.fabric8.kubernetes.api.model.Secret;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Optional;

/**
 * The Secret {@code <name>-autoscaler-credentials} ({@link KedaObjects#secret}). It keeps its password (the broker
 * user follows it); one deleted behind the operator's back is recreated with a new one. Its informer is not the
 * worker credentials' (it selects by another label), so the worker's Secret is found by name beside it.
 */
@KubernetesDependent(informer = @Informer(labelSelector = KedaObjects.SELECTOR))
public class AutoscalerSecretDependent extends WorkerOwnedDependent<Secret> {

  public AutoscalerSecretDependent() {
    super(Secret.class);
  }

  @Override
  protected String resourceName(WorkerService ws) {
    return WorkerResources.autoscalerSecretName(ws);
  }

  @Override
  protected Secret desired(WorkerService ws, Context<WorkerService> context) {
    AutoscalerPlan plan = AutoscalerPlan.from(context);
    String password = current(ws, context).flatMap(Credentials::password).orElseGet(Credentials::newPassword);
    return KedaObjects.secret(ws, plan.username(), password, plan.managementUrl());
  }

  /** The autoscaler's Secret as the informer holds it, if any. */
  static Optional<Secret> current(WorkerService ws, Context<WorkerService> context) {
    return cached(context, Secret.class, WorkerResources.autoscalerSecretName(ws));
  }
}
