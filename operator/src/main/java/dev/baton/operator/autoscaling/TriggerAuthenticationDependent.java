package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.dependent.WorkerResources;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Optional;

/** The TriggerAuthentication {@code <name>} handing the autoscaler Secret's {@code host} to the ScaledObject's triggers. */
@KubernetesDependent(useSSA = BooleanWithUndefined.FALSE, informer = @Informer(labelSelector = KedaObjects.SELECTOR))
public class TriggerAuthenticationDependent extends KedaDependent<TriggerAuthentication> {

  public TriggerAuthenticationDependent() {
    super(TriggerAuthentication.class);
  }

  @Override
  protected String resourceName(WorkerService ws) {
    return WorkerResources.triggerAuthenticationName(ws);
  }

  @Override
  protected TriggerAuthentication desired(WorkerService ws, Context<WorkerService> context) {
    return KedaObjects.triggerAuthentication(ws);
  }

  /** The WorkerService's TriggerAuthentication as the informer holds it, if any. */
  static Optional<TriggerAuthentication> current(WorkerService ws, Context<WorkerService> context) {
    return cached(context, TriggerAuthentication.class, WorkerResources.triggerAuthenticationName(ws));
  }
}
