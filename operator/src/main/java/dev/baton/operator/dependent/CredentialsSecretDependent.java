package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.WorkerService;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.processing.dependent.kubernetes.KubernetesDependent;
import java.util.Map;
import java.util.Optional;

/**
 * The Secret {@code <name>-broker-credentials} with the worker's broker username, password and URI. The password is
 * drawn once and kept: a Secret that exists keeps its password (the broker user follows it); a Secret deleted
 * behind the operator's back is recreated with a new one; a new value of the WorkerService's annotation
 * {@value WorkerResources#ROTATE_ANNOTATION} draws a new one (rotation). With the annotation
 * {@value ImportedPasswordAnnotation#NAME}, the password is the one of that Secret instead (imported, e.g. from a vault).
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

  /** Mutable: JOSDK adds the annotations that map the Secret back to its WorkerService. */
  private static Map<String, String> annotations(Optional<String> rotation) {
    Map<String, String> annotations = new java.util.LinkedHashMap<>();
    rotation.ifPresent(r -> annotations.put(WorkerResources.ROTATE_ANNOTATION, r));
    return annotations;
  }

  /**
   * The worker's credentials Secret as the informer holds it, if any: found by name, since the autoscaler's Secret
   * (another informer) is a Secret of the WorkerService too.
   */
  public static Optional<Secret> current(WorkerService ws, Context<WorkerService> context) {
    return cached(context, Secret.class, WorkerResources.secretName(ws));
  }

  @Override
  protected Secret desired(WorkerService ws, Context<WorkerService> context) {
    WorkerPlan plan = WorkerPlan.from(context);
    Optional<Secret> current = getSecondaryResource(ws, context);
    Optional<String> rotation = WorkerResources.rotation(ws);
    boolean rotate = rotation.isPresent() && !rotation.equals(current.flatMap(WorkerResources::rotation));
    String password = plan.importedPassword() != null ? plan.importedPassword()
        : current.filter(c -> !rotate).flatMap(Credentials::password).orElseGet(Credentials::newPassword);
    return new SecretBuilder()
        .withNewMetadata()
        .withName(resourceName(ws))
        .withNamespace(ws.getMetadata().getNamespace())
        .withLabels(WorkerResources.labels(ws))
        .withAnnotations(annotations(rotation))
        .endMetadata()
        .withType("Opaque")
        .withData(Credentials.data(plan, password))
        .build();
  }
}
