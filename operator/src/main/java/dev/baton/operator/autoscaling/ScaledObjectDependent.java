package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.dependent.WorkerResources;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.BooleanWithUndefined;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Optional;

/**
 * The ScaledObject {@code <name>} scaling the WorkerService's Deployment ({@link KedaObjects#scaledObject}). Written
 * with plain create and update, also where server-side apply is on: the object is wholly Baton's, and the grant
 * stays create/update whatever the setting.
 */
@KubernetesDependent(useSSA = BooleanWithUndefined.FALSE, informer = @Informer(labelSelector = KedaObjects.SELECTOR))
public class ScaledObjectDependent extends KedaDependent<ScaledObject> {

  public ScaledObjectDependent() {
    super(ScaledObject.class);
  }

  @Override
  protected String resourceName(WorkerService ws) {
    return WorkerResources.scaledObjectName(ws);
  }

  @Override
  protected ScaledObject desired(WorkerService ws, Context<WorkerService> context) {
    AutoscalerPlan plan = AutoscalerPlan.from(context);
    return KedaObjects.scaledObject(ws, plan.topology(), plan.vhost());
  }

  /** The WorkerService's ScaledObject as the informer holds it (with KEDA's status), if any. */
  public static Optional<ScaledObject> current(WorkerService ws, Context<WorkerService> context) {
    return cached(context, ScaledObject.class, WorkerResources.scaledObjectName(ws));
  }
}
