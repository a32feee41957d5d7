package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A Secret, Deployment or PodDisruptionBudget with the name the operator would give a WorkerService's, which that WorkerService does not
 * own: someone else's. The operator never adopts or overwrites it (it could hold another application's credentials or
 * run another application): the WorkerService is in Conflict until it goes or is renamed. The informers see only what
 * the operator manages, so an object missing from them is looked up by name: one request, on creation or while in
 * conflict.
 */
public final class ForeignObjects {

  private ForeignObjects() {}

  /** What stands in the way, as the condition's message; empty when nothing does. */
  public static Optional<String> blocking(WorkerService ws, Context<WorkerService> context) {
    String ns = ws.getMetadata().getNamespace();
    Optional<String> secret = foreign(ws, "Secret", CredentialsSecretDependent.current(ws, context),
        () -> context.getClient().secrets().inNamespace(ns).withName(WorkerResources.secretName(ws)).get());
    if (secret.isPresent() || !DeploymentRequested.isRequested(ws)) {
      return secret;
    }
    Optional<String> deployment = foreign(ws, "Deployment", context.getSecondaryResource(Deployment.class),
        () -> context.getClient().apps().deployments().inNamespace(ns).withName(WorkerResources.deploymentName(ws))
            .get());
    if (deployment.isPresent() || !WorkerDisruptionBudgetDependent.isRequested(ws)) {
      return deployment;
    }
    return foreign(ws, "PodDisruptionBudget", context.getSecondaryResource(PodDisruptionBudget.class),
        () -> context.getClient().policy().v1().podDisruptionBudget().inNamespace(ns)
            .withName(WorkerResources.deploymentName(ws)).get());
  }

  /**
   * Why the object of {@code kind} that Baton would name so stands in the way of {@code ws}: the informer's copy when
   * it holds one, else the object read by name ({@code byName}, one request).
   */
  public static Optional<String> foreign(WorkerService ws, String kind, Optional<? extends HasMetadata> cached,
      Supplier<? extends HasMetadata> byName) {
    return foreign(ws, kind, cached.isPresent() ? cached.get() : byName.get());
  }

  /** Why {@code found} (of {@code kind}) stands in the way of {@code ws}; empty when it is absent or ws's own. */
  public static Optional<String> foreign(WorkerService ws, String kind, HasMetadata found) {
    if (found == null || ownedBy(found, ws)) {
      return Optional.empty();
    }
    return Optional.of(kind + " " + found.getMetadata().getName() + " already exists in namespace "
        + ws.getMetadata().getNamespace() + " and is not this WorkerService's (no owner reference to it): Baton "
        + "neither adopts nor overwrites it; nothing is declared until it is deleted or renamed, or this WorkerService "
        + "is renamed");
  }

  /** Owned by this WorkerService (by kind and name: a WorkerService deleted and created again has a new uid). */
  private static boolean ownedBy(HasMetadata found, WorkerService ws) {
    return found.getMetadata().getOwnerReferences() != null && found.getMetadata().getOwnerReferences().stream()
        .anyMatch(o -> "WorkerService".equals(o.getKind()) && ws.getMetadata().getName().equals(o.getName()));
  }
}
