package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.dependent.ForeignObjects;
import dev.baton.operator.dependent.WorkerOwnedDependent;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.Matcher.Result;
import java.util.Map;

/**
 * A keda.sh object of a WorkerService: owned by it and deleted explicitly, as its other objects, but never when it is
 * not the WorkerService's.
 */
abstract class KedaDependent<R extends GenericKubernetesResource> extends WorkerOwnedDependent<R> {

  protected KedaDependent(Class<R> type) {
    super(type);
  }

  /**
   * Matches when the object has every value Baton wants, whatever the API server or KEDA's webhook added (defaults),
   * so that additions cause no update on every pass.
   */
  @Override
  public Result<R> match(R actual, R desired, WorkerService ws, Context<WorkerService> context) {
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
  protected void handleDelete(WorkerService ws, R secondary, Context<WorkerService> context) {
    if (secondary != null && ForeignObjects.foreign(ws, secondary.getKind(), secondary).isEmpty()) {
      super.handleDelete(ws, secondary, context);
    }
  }
}
