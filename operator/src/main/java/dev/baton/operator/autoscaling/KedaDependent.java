package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.dependent.ForeignObjects;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.dependent.Deleter;
import io.javaoperatorsdk.operator.processing.GroupVersionKind;
import io.javaoperatorsdk.operator.processing.dependent.Creator;
import io.javaoperatorsdk.operator.processing.dependent.Matcher.Result;
import io.javaoperatorsdk.operator.processing.dependent.Updater;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.GenericKubernetesDependentResource;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A keda.sh object of a WorkerService, as a generic resource (Baton needs no KEDA library). Owned by the WorkerService
 * (a real cluster's garbage collector catches what an operator that is gone leaves behind) and deleted explicitly
 * (the dev API server has no garbage collector), never when it is not the WorkerService's.
 */
abstract class KedaDependent extends GenericKubernetesDependentResource<WorkerService>
    implements Creator<GenericKubernetesResource, WorkerService>, Updater<GenericKubernetesResource, WorkerService>,
    Deleter<WorkerService> {

  private final String kind;

  protected KedaDependent(String kind) {
    super(new GroupVersionKind(KedaObjects.GROUP, KedaObjects.VERSION, kind));
    this.kind = kind;
  }

  protected abstract String resourceName(WorkerService ws);

  /** Found by name, without building the desired object. */
  @Override
  protected ResourceID targetSecondaryResourceID(WorkerService ws, Context<WorkerService> context) {
    return new ResourceID(resourceName(ws), ws.getMetadata().getNamespace());
  }

  /** JOSDK offers every generic resource of the WorkerService; the ScaledObject and its TriggerAuthentication share a name. */
  @Override
  protected Optional<GenericKubernetesResource> selectTargetSecondaryResource(Set<GenericKubernetesResource> candidates,
      WorkerService ws, Context<WorkerService> context) {
    return candidates.stream().filter(r -> isOf(r, ws)).findFirst();
  }

  private boolean isOf(GenericKubernetesResource r, WorkerService ws) {
    return kind.equals(r.getKind()) && resourceName(ws).equals(r.getMetadata().getName())
        && Objects.equals(ws.getMetadata().getNamespace(), r.getMetadata().getNamespace());
  }

  /**
   * Matches when the object has every value Baton wants, whatever the API server or KEDA's webhook added (defaults),
   * so that additions cause no update on every pass.
   */
  @Override
  public Result<GenericKubernetesResource> match(GenericKubernetesResource actual, GenericKubernetesResource desired,
      WorkerService ws, Context<WorkerService> context) {
    addReferenceHandlingMetadata(desired, ws);
    boolean matches = JsonSubset.covers(actual.getAdditionalProperties().get("spec"),
        desired.getAdditionalProperties().get("spec"))
        && contains(actual.getMetadata().getLabels(), desired.getMetadata().getLabels())
        && contains(actual.getMetadata().getAnnotations(), desired.getMetadata().getAnnotations());
    return Result.computed(matches, desired);
  }

  private static boolean contains(Map<String, String> actual, Map<String, String> desired) {
    return desired == null || desired.isEmpty() || actual != null && actual.entrySet().containsAll(desired.entrySet());
  }

  @Override
  protected void addReferenceHandlingMetadata(GenericKubernetesResource desired, WorkerService ws) {
    if (desired.getMetadata().getOwnerReferences().stream().noneMatch(o -> Objects.equals(o.getUid(),
        ws.getMetadata().getUid()))) {
      desired.addOwnerReference(ws);
    }
    // JOSDK maps non-garbage-collected dependents back to their primary by these annotations.
    addSecondaryToPrimaryMapperAnnotations(desired, ws);
  }

  @Override
  protected void handleDelete(WorkerService ws, GenericKubernetesResource secondary, Context<WorkerService> context) {
    if (secondary != null && ForeignObjects.foreign(ws, kind, secondary).isEmpty()) {
      super.handleDelete(ws, secondary, context);
    }
  }

  /** The object as the informer holds it, if there is one (none while KEDA's API is not served). */
  static Optional<GenericKubernetesResource> current(WorkerService ws, Context<WorkerService> context, String kind,
      String name) {
    return context.getSecondaryResourcesAsStream(GenericKubernetesResource.class)
        .filter(r -> kind.equals(r.getKind()) && name.equals(r.getMetadata().getName()))
        .findFirst();
  }
}
