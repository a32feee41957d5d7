package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.CRUDNoGCKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Optional;

/**
 * A Kubernetes object of a WorkerService. Deleted explicitly on cleanup (the dev API server has no garbage
 * collector) and also owned by the WorkerService, so a real cluster's garbage collector catches what an operator
 * that is gone would leave behind.
 */
public abstract class WorkerOwnedDependent<R extends HasMetadata> extends CRUDNoGCKubernetesDependentResource<R, WorkerService> {

  protected WorkerOwnedDependent(Class<R> type) {
    super(type);
  }

  protected abstract String resourceName(WorkerService ws);

  /**
   * The WorkerService's object of this type and name as an informer holds it, if any: found by name, since a
   * WorkerService may have two of a type (the worker's and the autoscaler's Secret).
   */
  public static <T extends HasMetadata> Optional<T> cached(Context<WorkerService> context, Class<T> type, String name) {
    return context.getSecondaryResourcesAsStream(type).filter(r -> name.equals(r.getMetadata().getName())).findFirst();
  }

  /** Found by name, without building the whole desired object (which, for the Secret, draws a password). */
  @Override
  protected ResourceID targetSecondaryResourceID(WorkerService ws, Context<WorkerService> context) {
    return new ResourceID(resourceName(ws), ws.getMetadata().getNamespace());
  }

  @Override
  protected void addReferenceHandlingMetadata(R desired, WorkerService primary) {
    // Called again on a desired object a match already prepared.
    if (desired.getMetadata().getOwnerReferences().stream()
        .noneMatch(o -> java.util.Objects.equals(o.getUid(), primary.getMetadata().getUid()))) {
      desired.addOwnerReference(primary);
    }
    // JOSDK maps non-garbage-collected dependents back to their primary by these annotations.
    addSecondaryToPrimaryMapperAnnotations(desired, primary);
  }
}
