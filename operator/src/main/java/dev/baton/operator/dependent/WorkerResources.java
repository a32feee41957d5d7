package dev.baton.operator.dependent;

import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.operator.model.WorkerPodTranslator;
import java.util.LinkedHashMap;
import java.util.Map;

/** Names and labels of the Kubernetes objects the operator manages for a WorkerService. */
public final class WorkerResources {

  public static final String NAME_LABEL = "app.kubernetes.io/name";
  public static final String MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
  public static final String MANAGED_BY = "baton-operator";
  public static final String WORKER_SERVICE_LABEL = "baton.dev/worker-service";
  /** Informers of Secrets and Deployments watch only what the operator manages. */
  public static final String MANAGED_SELECTOR = MANAGED_BY_LABEL + "=" + MANAGED_BY;
  /** The container the workers run in (the pod's, {@link WorkerPodTranslator}). */
  public static final String CONTAINER = WorkerPodTranslator.CONTAINER;
  /** Changes when the credentials Secret is recreated, so pods restart with the new password. */
  public static final String CREDENTIALS_UID_ANNOTATION = "baton.dev/credentials-secret-uid";
  /**
   * Set on a WorkerService, a new value draws a new broker password: the Secret records the value it was drawn for
   * (under the same annotation), the broker user follows, and the pods, whose template carries the value, roll.
   */
  public static final String ROTATE_ANNOTATION = "baton.dev/rotate-credentials";
  /**
   * On the pod template of a WorkerService that imports its password ({@value ImportedPasswordAnnotation#NAME}): a
   * checksum of that password, so that a new one in the imported Secret rolls the pods at the next pass.
   */
  public static final String IMPORTED_PASSWORD_ANNOTATION = "baton.dev/imported-password-checksum";

  /** The WorkerService's rotation request, if it has one. */
  public static java.util.Optional<String> rotation(io.fabric8.kubernetes.api.model.HasMetadata resource) {
    return java.util.Optional.ofNullable(resource.getMetadata().getAnnotations()).map(a -> a.get(ROTATE_ANNOTATION));
  }

  private WorkerResources() {}

  /** {@code <metadata.name>-broker-credentials}. */
  public static String secretName(WorkerService ws) {
    return ws.getMetadata().getName() + "-broker-credentials";
  }

  /** The Deployment has the WorkerService's name. */
  public static String deploymentName(WorkerService ws) {
    return ws.getMetadata().getName();
  }

  /** The KEDA ScaledObject scaling the Deployment has the Deployment's name. */
  public static String scaledObjectName(WorkerService ws) {
    return deploymentName(ws);
  }

  /** The KEDA TriggerAuthentication of that ScaledObject has the same name. */
  public static String triggerAuthenticationName(WorkerService ws) {
    return deploymentName(ws);
  }

  /** {@code <metadata.name>-autoscaler-credentials}: KEDA's read-only access to the management API. */
  public static String autoscalerSecretName(WorkerService ws) {
    return ws.getMetadata().getName() + "-autoscaler-credentials";
  }

  /** Labels of the Secret, the Deployment and the pods. */
  public static Map<String, String> labels(WorkerService ws) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(NAME_LABEL, ws.serviceName());
    labels.put(MANAGED_BY_LABEL, MANAGED_BY);
    labels.put(WORKER_SERVICE_LABEL, ws.getMetadata().getName());
    return labels;
  }

  /** The Deployment's selector: immutable in Kubernetes, so only what never changes for the resource. */
  public static Map<String, String> selector(WorkerService ws) {
    return Map.of(WORKER_SERVICE_LABEL, ws.getMetadata().getName());
  }
}
