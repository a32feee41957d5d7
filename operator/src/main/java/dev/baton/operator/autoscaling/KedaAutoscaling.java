package dev.baton.operator.autoscaling;

import dev.baton.api.v1alpha1.AutoscalingSettings;
import dev.baton.api.v1alpha1.ConditionTypes;
import dev.baton.api.v1alpha1.WorkerService;
import dev.baton.contract.Names;
import dev.baton.contract.topology.PermissionSpec;
import dev.baton.contract.topology.ServiceTopology;
import dev.baton.operator.OperatorSettings;
import dev.baton.operator.dependent.Credentials;
import dev.baton.operator.dependent.DeploymentRequested;
import dev.baton.operator.dependent.ForeignObjects;
import dev.baton.operator.dependent.WorkerResources;
import dev.baton.operator.status.ConditionState;
import dev.baton.operator.status.Reason;
import dev.baton.operator.topology.WorkerUserSync;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Autoscaling of a WorkerService's Deployment on queue depth, carried out by KEDA (no home-made autoscaler). The
 * objects are written with plain create/update (KEDA's API may not exist, so there are no informers on it) and
 * compared with what the cluster holds on every pass, so drift is repaired at the latest at the next resync. Their
 * state is the AutoscalingReady condition; autoscaling is optional, so Ready does not depend on it.
 */
public final class KedaAutoscaling {

  /** The autoscaler's user may not configure, write or read (consume) anything: it only sees statistics. */
  static final PermissionSpec READ_NOTHING = new PermissionSpec(Names.NOTHING_REGEX, Names.NOTHING_REGEX,
      Names.NOTHING_REGEX);
  /** The least tag that grants the management API's queue statistics, for the vhosts the user has access to. */
  static final List<String> TAGS = List.of("management");

  private final KedaDetector detector;
  private final WorkerUserSync users;
  private final OperatorSettings settings;
  /**
   * Set when the API server refused the keda.sh objects (403): KEDA is installed but the operator's RBAC does not
   * cover it (the Helm chart grants it only with autoscaling.keda.enabled). The Deployment then keeps its spec
   * replicas, as without KEDA.
   */
  private volatile boolean forbidden;

  public KedaAutoscaling(KedaDetector detector, WorkerUserSync users, OperatorSettings settings) {
    this.detector = detector;
    this.users = users;
    this.settings = settings;
  }

  /** Whether KEDA, not the spec, sets the replica count of the WorkerService's Deployment. */
  public boolean ownsReplicas(WorkerService ws, KubernetesClient client) {
    return ws.getSpec() != null && ws.getSpec().getAutoscaling() != null && DeploymentRequested.isRequested(ws)
        && detector.installed(client) && !forbidden;
  }

  /**
   * Puts the KEDA objects in place for a WorkerService that asks for autoscaling, removes them from one that no
   * longer does.
   *
   * @param actions what was changed, for the log
   * @return the AutoscalingReady verdict, or null when autoscaling is not asked for
   */
  public ConditionState apply(WorkerService ws, ServiceTopology plan, KubernetesClient client, List<String> actions) {
    AutoscalingSettings a = ws.getSpec().getAutoscaling();
    if (a == null || !DeploymentRequested.isRequested(ws)) {
      if (mayHaveObjects(ws)) {
        remove(ws, plan.service(), client, actions);
      }
      return a == null ? null : ConditionState.failed(Reason.NO_DEPLOYMENT, "spec.autoscaling needs spec.deployment: without "
          + "a Deployment there is nothing to scale (scale workers that run elsewhere with their own tools)");
    }
    if (!detector.installed(client)) {
      return ConditionState.failed(Reason.KEDA_NOT_INSTALLED, "KEDA is not installed in this cluster (" + KedaDetector.GROUP_VERSION
          + " ScaledObject is not served): install KEDA 2.x, e.g. the kedacore/keda Helm chart, to scale on queue "
          + "depth; until then the Deployment keeps spec.deployment.replicas (" + ws.getSpec().getDeployment().getReplicas()
          + ")");
    }
    // A ScaledObject of that name that is not this WorkerService's belongs to someone else: never adopted or overwritten.
    Optional<String> foreign = ForeignObjects.foreign(ws, "ScaledObject", client
        .genericKubernetesResources(KedaObjects.SCALED_OBJECTS).inNamespace(ws.getMetadata().getNamespace())
        .withName(WorkerResources.scaledObjectName(ws)).get());
    if (foreign.isPresent()) {
      return ConditionState.failed(Reason.CONFLICT, foreign.get());
    }
    String username = Names.autoscalerUser(settings.userPrefix(), plan.service());
    String password = ensureSecret(ws, username, client, actions);
    actions.addAll(users.ensure(username, password, TAGS, READ_NOTHING));
    GenericKubernetesResource scaledObject;
    try {
      ensure(client, KedaObjects.TRIGGER_AUTHENTICATIONS, KedaObjects.triggerAuthentication(ws), actions);
      scaledObject =
          ensure(client, KedaObjects.SCALED_OBJECTS, KedaObjects.scaledObject(ws, plan, settings.vhost()), actions);
      forbidden = false;
    } catch (KubernetesClientException e) {
      if (e.getCode() != 403) {
        throw e;
      }
      forbidden = true;
      return ConditionState.failed(Reason.KEDA_FORBIDDEN, "KEDA is installed but the operator may not write keda.sh "
          + "ScaledObjects/TriggerAuthentications (HTTP 403): grant them (Helm: --set autoscaling.keda.enabled=true); "
          + "until then the Deployment keeps spec.deployment.replicas (" + ws.getSpec().getDeployment().getReplicas()
          + ")");
    }
    return kedaSays(scaledObject).orElse(ConditionState.ok(Reason.SCALED_OBJECT_READY, "ScaledObject "
        + scaledObject.getMetadata().getName() + " scales Deployment " + WorkerResources.deploymentName(ws) + " from "
        + a.getMinReplicas() + " to " + a.getMaxReplicas() + " replicas, aiming at " + a.getTargetQueueDepth()
        + " messages per replica in each of " + plan.consumers().size() + " queue(s)"));
  }

  /** Whether the last status said the KEDA objects were written (so there may be something to remove). */
  private static boolean mayHaveObjects(WorkerService ws) {
    return ws.getStatus() != null && ws.getStatus().condition(ConditionTypes.AUTOSCALING_READY)
        .map(c -> Reason.SCALED_OBJECT_READY.value().equals(c.getReason())
            || Reason.SCALER_NOT_READY.value().equals(c.getReason()))
        .orElse(false);
  }

  /** Whether the WorkerService asks or asked for autoscaling, so that its deletion has KEDA objects to look for. */
  public static boolean concerns(WorkerService ws) {
    return ws.getSpec() != null && ws.getSpec().getAutoscaling() != null
        || ws.getStatus() != null && ws.getStatus().condition(ConditionTypes.AUTOSCALING_READY).isPresent();
  }

  /** Deletes the ScaledObject, its TriggerAuthentication and Secret, and the read-only broker user. */
  public void remove(WorkerService ws, String service, KubernetesClient client, List<String> actions) {
    if (detector.installed(client)) {
      if (!client.genericKubernetesResources(KedaObjects.SCALED_OBJECTS).inNamespace(ws.getMetadata().getNamespace())
          .withName(WorkerResources.scaledObjectName(ws)).delete().isEmpty()) {
        actions.add("deleted ScaledObject " + WorkerResources.scaledObjectName(ws));
      }
      client.genericKubernetesResources(KedaObjects.TRIGGER_AUTHENTICATIONS)
          .inNamespace(ws.getMetadata().getNamespace()).withName(WorkerResources.triggerAuthenticationName(ws)).delete();
    }
    client.secrets().inNamespace(ws.getMetadata().getNamespace()).withName(WorkerResources.autoscalerSecretName(ws))
        .delete();
    users.remove(Names.autoscalerUser(settings.userPrefix(), service));
  }

  /** The Secret keeps its password (the broker user follows it); a Secret deleted behind the operator gets a new one. */
  private String ensureSecret(WorkerService ws, String username, KubernetesClient client, List<String> actions) {
    Secret existing = client.secrets().inNamespace(ws.getMetadata().getNamespace())
        .withName(WorkerResources.autoscalerSecretName(ws)).get();
    String password = Optional.ofNullable(existing).flatMap(Credentials::password).orElseGet(Credentials::newPassword);
    Secret desired = KedaObjects.secret(ws, username, password, settings.managementUrl());
    if (existing == null) {
      client.resource(desired).create();
      actions.add("created Secret " + desired.getMetadata().getName());
    } else if (!Objects.equals(existing.getData(), desired.getData())
        || !existing.getMetadata().getLabels().entrySet().containsAll(desired.getMetadata().getLabels().entrySet())) {
      existing.setData(desired.getData());
      existing.setStringData(null);
      existing.getMetadata().getLabels().putAll(desired.getMetadata().getLabels());
      client.resource(existing).update();
      actions.add("updated Secret " + desired.getMetadata().getName());
    }
    return password;
  }

  private static GenericKubernetesResource ensure(KubernetesClient client, ResourceDefinitionContext type,
      GenericKubernetesResource desired, List<String> actions) {
    var resources = client.genericKubernetesResources(type).inNamespace(desired.getMetadata().getNamespace());
    GenericKubernetesResource actual = resources.withName(desired.getMetadata().getName()).get();
    if (actual == null) {
      actions.add("created " + desired.getKind() + " " + desired.getMetadata().getName());
      return resources.resource(desired).create();
    }
    Object desiredSpec = desired.getAdditionalProperties().get("spec");
    boolean labelled = actual.getMetadata().getLabels().entrySet().containsAll(desired.getMetadata().getLabels().entrySet());
    if (JsonSubset.covers(actual.getAdditionalProperties().get("spec"), desiredSpec) && labelled) {
      return actual;
    }
    actual.setAdditionalProperty("spec", desiredSpec);
    actual.getMetadata().getLabels().putAll(desired.getMetadata().getLabels());
    if (actual.getMetadata().getOwnerReferences().isEmpty()) {
      actual.getMetadata().setOwnerReferences(desired.getMetadata().getOwnerReferences());
    }
    actions.add("updated " + desired.getKind() + " " + desired.getMetadata().getName());
    return resources.resource(actual).update();
  }

  /** KEDA's own Ready condition on the ScaledObject, when it says False. */
  @SuppressWarnings("unchecked")
  private static Optional<ConditionState> kedaSays(GenericKubernetesResource scaledObject) {
    Object status = scaledObject.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> s) || !(s.get("conditions") instanceof List<?> conditions)) {
      return Optional.empty();
    }
    return conditions.stream().filter(Map.class::isInstance).map(c -> (Map<String, Object>) c)
        .filter(c -> "Ready".equals(c.get("type")) && "False".equals(c.get("status")))
        .findFirst()
        .map(c -> ConditionState.failed(Reason.SCALER_NOT_READY, "KEDA reports ScaledObject "
            + scaledObject.getMetadata().getName() + " not ready: " + c.getOrDefault("reason", "") + " "
            + c.getOrDefault("message", "")));
  }
}
